import fs from 'node:fs';
import path from 'node:path';
import { isPublicId } from 'candidate-documents';
import type { Config } from '../config';

/** One erasure as the log keeps it: whom (a pseudonymous public id) and when. Never identity data. */
export interface LoggedErasure {
  publicId: string;
  at: Date;
}

/** The log's file in the data directory when ERASURE_LOG does not name one. */
export const ERASURE_LOG_FILE = 'erasures.log';

/**
 * The erasures ever asked for, one JSON line each, in a file outside the store: a backup holds
 * the store as it was, so restoring one taken before an erasure would bring the candidate back;
 * the log is what a restore (and every start) erases again. Each erasure is appended and fsync'ed
 * before it is carried out, so an erasure cut short by a crash is completed at the next start too.
 * Appends of several processes (the service and `npm run erase` beside it) never interleave
 * (O_APPEND, one write per line).
 */
export class ErasureLog {
  constructor(readonly file: string) {}

  async append(publicId: string, at: Date): Promise<void> {
    const line = lineOf({ publicId, at });
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const handle = await fs.promises.open(this.file, 'a', 0o600);
    try {
      await handle.write(line);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** Writes `erasures` as the whole log (a new file, fsync'ed): a restored data directory's copy. */
  writeAll(erasures: readonly LoggedErasure[]): void {
    fs.writeFileSync(this.file, erasures.map(lineOf).join(''), { mode: 0o600, flag: 'wx' });
    const fd = fs.openSync(this.file, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Every erasure of the log, in order; none when there is no file. A line that is not a whole
   * entry (a crash in the middle of an append) is skipped.
   */
  async read(): Promise<LoggedErasure[]> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const erasures: LoggedErasure[] = [];
    for (const line of text.split('\n')) {
      const entry = parseLine(line);
      if (entry !== undefined) erasures.push(entry);
    }
    return erasures;
  }
}

function lineOf({ publicId, at }: LoggedErasure): string {
  return `${JSON.stringify({ publicId, at: at.toISOString() })}\n`;
}

function parseLine(line: string): LoggedErasure | undefined {
  if (line.trim() === '') return undefined;
  try {
    const { publicId, at } = JSON.parse(line) as { publicId?: unknown; at?: unknown };
    const when = typeof at === 'string' ? new Date(at) : undefined;
    if (typeof publicId !== 'string' || !isPublicId(publicId) || when === undefined || Number.isNaN(when.getTime()))
      return undefined;
    return { publicId, at: when };
  } catch {
    return undefined;
  }
}

/** The erasure log of the configuration: ERASURE_LOG, else DATA_DIR's on the embedded store, else none. */
export function erasureLogFor(config: Pick<Config, 'erasureLog' | 'mongodbUri' | 'dataDir'>): ErasureLog | undefined {
  if (config.erasureLog !== '') return new ErasureLog(path.resolve(config.erasureLog));
  if (config.mongodbUri !== '') return undefined;
  return new ErasureLog(path.join(config.dataDir, ERASURE_LOG_FILE));
}
