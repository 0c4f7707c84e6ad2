import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** Bodies smaller than this are sent as they are: compressing them saves less than it costs. */
export const MIN_COMPRESSED_BYTES = 1024;

/** One kept answer of a /v1 GET. */
export interface CachedAnswer {
  /** the serialised JSON body, UTF-8 */
  readonly body: Buffer;
  /** its weak ETag, in Express's format (computed once, not per answer) */
  readonly etag: string;
  /** the candidates it returns, for the audit event of every request it answers */
  readonly candidatePublicIds: readonly string[];
  /** the body gzip-compressed, made on the first request that accepts it and kept with the answer */
  gzipped?: Promise<Buffer>;
}

/**
 * The body of `answer` for a client that accepts gzip: compressed once per kept answer, off the
 * event loop (zlib's thread pool). A search page of 100 candidates shrinks about nine-fold.
 */
export function gzippedBody(answer: CachedAnswer): Promise<Buffer> {
  answer.gzipped ??= gzipAsync(answer.body);
  return answer.gzipped;
}

/** The ETag of the gzip form: another representation, so another validator. */
export function gzipEtag(etag: string): string {
  return `${etag.slice(0, -1)}-gzip"`;
}

interface Entry extends CachedAnswer {
  readonly epoch: string;
  readonly bytes: number;
}

/**
 * The serialised 200 answers of /v1 GETs by request URL, each valid for the read epoch it was
 * computed under (src/cache/read-epoch.ts): an answer is the same for every caller allowed to
 * read it, and the same until a write advances the epoch. Bounded in bytes, least recently
 * used first out. Everything before the answer (key, permission, rate limit, parameters) still
 * runs for every request; only the operation and its serialisation are skipped.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  /** `capacityBytes` 0: keeps nothing. */
  constructor(private readonly capacityBytes: number) {}

  get(url: string, epoch: string): CachedAnswer | undefined {
    const entry = this.entries.get(url);
    if (entry === undefined) return undefined;
    this.entries.delete(url);
    if (entry.epoch !== epoch) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(url, entry);
    return entry;
  }

  set(url: string, epoch: string, answer: CachedAnswer): void {
    // A quarter of the body on top: room for its gzip form, should a client ask for it.
    const bytes = Math.ceil(answer.body.length * 1.25) + url.length * 2 + answer.candidatePublicIds.length * 64;
    if (bytes > this.capacityBytes / 4) return;
    const previous = this.entries.get(url);
    if (previous !== undefined) {
      this.entries.delete(url);
      this.bytes -= previous.bytes;
    }
    this.entries.set(url, { ...answer, epoch, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.capacityBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }
}

/** A JSON answer as Express would send it: UTF-8 bytes (as they are when already bytes) and a weak ETag over them. */
export function serialisedAnswer(json: string | Buffer): { body: Buffer; etag: string } {
  const body = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  const digest = createHash('sha1').update(body).digest('base64').slice(0, 27);
  return { body, etag: `W/"${body.length.toString(16)}-${digest}"` };
}
