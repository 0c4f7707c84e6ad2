import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { BackedUpCollection } from '../commands/maintenance';
import { Catalog, isSecureDelete } from '../engine/catalog';
import { DataDirectory } from '../persistence/data-directory';
import type { EngineSpace } from '../persistence/engine-space';
import { fsyncDirectory, fsyncFile } from '../persistence/record-file';
import { idPrefix } from '../persistence/storage-engine';
import { SILENT_LOG } from '../store-log';
import { readTar, TAR_END, tarHeader, tarPadding, type TarEntrySink } from './tar';

/**
 * A backup of the embedded store as the `createBackup` command leaves it (the engine's files,
 * copied from one snapshot) with a manifest, either as a directory or as one `.tar.gz` file, and
 * how it is put back into a data directory. Nothing is ever half-written under the name asked
 * for: a backup is written beside it under a temporary name, fsync'ed, then renamed; a restore
 * is verified, unpacked beside the data directory, fsync'ed, then renamed into place.
 */

/** The manifest's own file in a backup (the first entry of an archive). */
export const MANIFEST_FILE = 'manifest.json';
const FORMAT = 'embedded-mongodb-backup';
/** The engine's files a backup may hold; nothing else is ever read out of one. */
const ENGINE_FILES = new Set(['data.mdb', 'secure.mdb']);

/** What a backup holds, written beside its files. */
export interface BackupManifest {
  format: typeof FORMAT;
  version: 1;
  /** The moment of the snapshot: every write acknowledged before it is in the backup. */
  snapshotTime: string;
  /** Every collection with its documents and each index's entries, counted at the snapshot. */
  collections: BackedUpCollection[];
  /** The engine's files, each with its size and SHA-256. */
  files: { name: string; bytes: number; sha256: string }[];
  /** SHA-256 of this manifest's other fields as JSON: a manifest changed by hand does not verify. */
  checksum: string;
}

/** A backup that cannot be written or restored as asked; the message says why (never a document). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Whether `target` names an archive (`.tar.gz` or `.tgz`) rather than a directory. */
export function isArchiveName(target: string): boolean {
  return /\.(tar\.gz|tgz)$/i.test(target);
}

/**
 * Where a backup to `target` is written before it is complete: beside it, so that the final
 * rename stays on one filesystem. The `createBackup` command writes the engine's files into the
 * directory `stagingDirectoryFor(target)`; finishBackup turns it into the backup.
 */
export function stagingDirectoryFor(target: string): string {
  return path.join(path.dirname(path.resolve(target)), `.${path.basename(target)}.partial`);
}

/** Refuses a target that exists or whose folder does not; removes what an earlier attempt left beside it. */
export function prepareBackupTarget(target: string): string {
  const absolute = path.resolve(target);
  if (fs.existsSync(absolute)) throw new BackupError(`${absolute} exists: a backup never replaces anything`);
  if (!fs.existsSync(path.dirname(absolute))) throw new BackupError(`the folder of ${absolute} does not exist`);
  const staging = stagingDirectoryFor(absolute);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.rmSync(`${staging}.tar.gz`, { force: true });
  return staging;
}

/**
 * Completes a backup from the engine's files in `staging` (the createBackup command's output):
 * checksums them, writes the manifest, and moves the result to `target` (a directory, or one
 * `.tar.gz` file), fsync'ed before the rename. Resolves with the manifest.
 */
export async function finishBackup(
  staging: string,
  target: string,
  snapshot: { snapshotTime: Date; collections: BackedUpCollection[] },
): Promise<BackupManifest> {
  const absolute = path.resolve(target);
  const names = fs.readdirSync(staging).filter((name) => ENGINE_FILES.has(name));
  const files: BackupManifest['files'] = [];
  for (const name of names.sort()) {
    const file = path.join(staging, name);
    files.push({ name, bytes: fs.statSync(file).size, sha256: await sha256OfFile(file) });
  }
  const manifest = sealManifest({
    format: FORMAT,
    version: 1,
    snapshotTime: snapshot.snapshotTime.toISOString(),
    collections: snapshot.collections,
    files,
  });
  const manifestFile = path.join(staging, MANIFEST_FILE);
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  fsyncFile(manifestFile);
  if (isArchiveName(absolute)) {
    const partial = `${staging}.tar.gz`;
    await writeArchive(staging, [MANIFEST_FILE, ...files.map((f) => f.name)], partial);
    moveIntoPlace(partial, absolute);
    fs.rmSync(staging, { recursive: true, force: true });
  } else {
    fsyncDirectory(staging);
    moveIntoPlace(staging, absolute);
  }
  return manifest;
}

/** Renames `from` to `to` (which must not exist) and makes the rename durable. */
function moveIntoPlace(from: string, to: string): void {
  if (fs.existsSync(to)) throw new BackupError(`${to} appeared while the backup was written; it is kept at ${from}`);
  fs.renameSync(from, to);
  fsyncDirectory(path.dirname(to));
}

function sealManifest(fields: Omit<BackupManifest, 'checksum'>): BackupManifest {
  return { ...fields, checksum: sha256(JSON.stringify(fields)) };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** Writes the files `names` of `dir` as a gzip'ed tar to the new file `target`, fsync'ed. */
async function writeArchive(dir: string, names: readonly string[], target: string): Promise<void> {
  const fd = fs.openSync(target, 'wx', 0o600);
  try {
    async function* entries(): AsyncGenerator<Buffer> {
      for (const name of names) {
        const file = path.join(dir, name);
        const stat = fs.statSync(file);
        yield tarHeader(name, stat.size, stat.mtime);
        let written = 0;
        for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
          written += chunk.length;
          yield chunk;
        }
        if (written !== stat.size) throw new BackupError(`${name} changed while it was archived`);
        yield tarPadding(stat.size);
      }
      yield TAR_END;
    }
    // Level 1: the store's pages compress well already at the fastest level.
    await pipeline(
      Readable.from(entries()),
      zlib.createGzip({ level: 1 }),
      fs.createWriteStream('', { fd, autoClose: false }),
    );
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(target, { force: true });
    throw error;
  }
  fs.closeSync(fd);
}

/** Reads the manifest of a backup (a directory or an archive) and checks its own checksum. */
async function readManifest(source: string): Promise<BackupManifest> {
  let text: string | undefined;
  if (isArchiveName(source)) {
    const chunks: Buffer[] = [];
    // The manifest is the archive's first entry: reading stops after it.
    await readArchive(source, (name) => {
      if (name !== MANIFEST_FILE) throw new ManifestRead();
      return {
        write: (chunk) => void chunks.push(Buffer.from(chunk)),
        end: () => {
          throw new ManifestRead();
        },
      };
    }).catch((error: unknown) => {
      if (!(error instanceof ManifestRead)) throw error;
    });
    text = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
  } else {
    const file = path.join(source, MANIFEST_FILE);
    text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  }
  if (text === undefined)
    throw new BackupError(`${source} has no ${MANIFEST_FILE}: not a backup of the embedded store`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw new BackupError(`the manifest of ${source} is not JSON: the backup is damaged`);
  }
  const { checksum, ...fields } = manifest;
  if (manifest.format !== FORMAT || manifest.version !== 1)
    throw new BackupError(`${source} is not a backup this store reads (format ${String(manifest.format)})`);
  if (checksum !== sha256(JSON.stringify(fields)))
    throw new BackupError(`the manifest of ${source} does not match its checksum: the backup is damaged`);
  if (!manifest.files.some((file) => file.name === 'data.mdb') || manifest.files.some((f) => !ENGINE_FILES.has(f.name)))
    throw new BackupError(`the manifest of ${source} names other files than the store's`);
  return manifest;
}

/** Ends the reading of an archive once its manifest is read. */
class ManifestRead extends Error {}

async function readArchive(source: string, entry: (name: string, size: number) => TarEntrySink): Promise<void> {
  const gunzip = zlib.createGunzip();
  const reading = pipeline(fs.createReadStream(source), gunzip).catch((error: unknown) => {
    throw new BackupError(`${source} cannot be read as a .tar.gz: ${(error as Error).message}`);
  });
  try {
    await readTar(gunzip, entry);
  } catch (error) {
    gunzip.destroy();
    await reading.catch(() => undefined);
    if (error instanceof BackupError || error instanceof ManifestRead) throw error;
    throw new BackupError(`${source} is damaged: ${(error as Error).message}`);
  }
  await reading;
}

/**
 * The files of a backup, each streamed to `sink(name)` and checked against the manifest as it
 * goes: a size or SHA-256 that differs rejects, naming the file.
 */
async function readFiles(
  source: string,
  manifest: BackupManifest,
  sink: (name: string) => TarEntrySink,
): Promise<void> {
  const expected = new Map(manifest.files.map((file) => [file.name, file]));
  const seen = new Set<string>();
  const checked = (name: string): TarEntrySink => {
    const file = expected.get(name);
    if (file === undefined) return { write: () => undefined, end: () => undefined };
    seen.add(name);
    const hash = createHash('sha256');
    const into = sink(name);
    let bytes = 0;
    return {
      write: (chunk) => {
        hash.update(chunk);
        bytes += chunk.length;
        return into.write(chunk);
      },
      end: async () => {
        await into.end();
        if (bytes !== file.bytes || hash.digest('hex') !== file.sha256)
          throw new BackupError(`${name} of ${source} does not match its checksum: the backup is damaged`);
      },
    };
  };
  if (isArchiveName(source)) await readArchive(source, (name) => checked(name));
  else {
    for (const name of expected.keys()) {
      const file = path.join(source, name);
      if (!fs.existsSync(file)) continue;
      const into = checked(name);
      for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) await into.write(chunk);
      await into.end();
    }
  }
  const missing = [...expected.keys()].filter((name) => !seen.has(name));
  if (missing.length > 0) throw new BackupError(`${source} lacks ${missing.join(', ')}: the backup is incomplete`);
}

/** Verifies a backup whole (its manifest and every file's size and SHA-256), writing nothing. */
export async function verifyBackup(source: string): Promise<BackupManifest> {
  const absolute = path.resolve(source);
  if (!fs.existsSync(absolute)) throw new BackupError(`${absolute} does not exist`);
  const manifest = await readManifest(absolute);
  await readFiles(absolute, manifest, () => ({ write: () => undefined, end: () => undefined }));
  return manifest;
}

/** A data directory a restore may fill: absent, or an empty directory. */
function assertRestorable(target: string): void {
  if (!fs.existsSync(target)) {
    if (!fs.existsSync(path.dirname(target))) throw new BackupError(`the folder of ${target} does not exist`);
    return;
  }
  if (!fs.statSync(target).isDirectory()) throw new BackupError(`${target} is not a directory`);
  if (fs.readdirSync(target).length > 0)
    throw new BackupError(`${target} is not empty: a restore goes only into an empty or new directory`);
}

/**
 * Restores the backup `source` into the data directory `target`, which must be absent or empty:
 * verifies the whole backup first (nothing is written if it does not verify), unpacks it into a
 * directory beside `target`, checking every file again as it is written, fsyncs it, runs
 * `prepare` on that directory (a restore of the service re-applies later erasures there), and
 * only then renames it to `target`. Resolves with the manifest.
 */
export async function restoreBackup(
  source: string,
  target: string,
  prepare: (dataDir: string, manifest: BackupManifest) => Promise<void> = async () => undefined,
): Promise<BackupManifest> {
  const absoluteSource = path.resolve(source);
  const absoluteTarget = path.resolve(target);
  assertRestorable(absoluteTarget);
  const manifest = await verifyBackup(absoluteSource);
  const staging = path.join(path.dirname(absoluteTarget), `.${path.basename(absoluteTarget)}.restoring`);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { mode: 0o700 });
  const open = new Set<number>();
  try {
    await readFiles(absoluteSource, manifest, (name) => {
      const fd = fs.openSync(path.join(staging, name), 'wx', 0o600);
      open.add(fd);
      return {
        write: (chunk) => {
          for (let at = 0; at < chunk.length;) at += fs.writeSync(fd, chunk, at);
        },
        end: () => {
          fs.fsyncSync(fd);
          open.delete(fd);
          fs.closeSync(fd);
        },
      };
    });
    fsyncDirectory(staging);
    await checkCounts(staging, manifest);
    await prepare(staging, manifest);
    assertRestorable(absoluteTarget);
    if (fs.existsSync(absoluteTarget)) fs.rmdirSync(absoluteTarget);
    fs.renameSync(staging, absoluteTarget);
    fsyncDirectory(path.dirname(absoluteTarget));
  } catch (error) {
    for (const fd of open) fs.closeSync(fd);
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return manifest;
}

/**
 * Opens the restored files and counts, in the B-trees themselves, every collection's documents
 * and every index's entries: each must be what the manifest says the snapshot held (and what the
 * store's own counts say), or the restore stops.
 */
async function checkCounts(dataDir: string, manifest: BackupManifest): Promise<void> {
  const directory = await DataDirectory.open(dataDir, SILENT_LOG);
  try {
    const catalog = new Catalog(directory.engine);
    const problems: string[] = [];
    const counted = (space: EngineSpace, db: 'documents' | 'entries', id: number) =>
      space[db].getKeysCount({ start: idPrefix(id), end: idPrefix(id + 1) });
    for (const expected of manifest.collections) {
      const namespace = `${expected.db}.${expected.name}`;
      const collection = catalog.getCollection(expected.db, expected.name);
      if (!collection) {
        problems.push(`${namespace} is missing`);
        continue;
      }
      const space = isSecureDelete(collection.options) ? directory.engine.secureSpace() : directory.engine;
      const documents = counted(space, 'documents', collection.id);
      if (documents !== expected.documents || collection.count !== expected.documents)
        problems.push(`${namespace} holds ${documents} documents, the manifest ${expected.documents}`);
      for (const { name, entries } of expected.indexes) {
        const index = collection.getIndex(name);
        const found = index === undefined ? -1 : counted(space, 'entries', index.id);
        if (found !== entries || index?.size !== entries)
          problems.push(`index ${name} of ${namespace} holds ${found} entries, the manifest ${entries}`);
      }
    }
    if (problems.length > 0)
      throw new BackupError(`the restored files do not hold what the manifest says: ${problems.join('; ')}`);
  } finally {
    await directory.close();
  }
}
