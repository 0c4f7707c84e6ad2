import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import { IDEMPOTENCY_TTL_SECONDS } from '../idempotency/idempotency-indexes';
import type { IdempotencyRecord, IdempotencyRepository } from '../idempotency/idempotency-repository';
import { PROBLEM_TYPES } from '../http/problem-types';
import { problemBody, RestProblem, type RestResponse } from '../http/problem';
import { systemClock, type Clock } from '../common/clock';
import type { CompanionWrite } from '../store/write-transaction';

/**
 * Builds the completion of the request's idempotency record, to be stored with its write;
 * `registered`: the candidate the write registered (its erasure then finds the record).
 */
export type CompletionOf = (response: RestResponse, registered?: string) => CompanionWrite;

/** 1 to 255 printable ASCII characters (RFC draft "The Idempotency-Key HTTP Header Field"). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export interface IdempotentRequest {
  apiKeyId: string;
  /** the Idempotency-Key header */
  key: string;
  /** identifies the request: same key with another fingerprint is a 422 */
  fingerprint: string;
  /** the `instance` of a problem answered for the request (its path; absent: none given) */
  instance?: string;
}

export interface IdempotentResult {
  response: RestResponse;
  /** true when `response` is the stored answer of an earlier request */
  replayed: boolean;
}

/** The Idempotency-Key header, checked; undefined when absent. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw new RestProblem(
      PROBLEM_TYPES.invalidParameter,
      'Invalid parameter: Idempotency-Key must be given once, as 1 to 255 printable ASCII characters.',
    );
  }
  return header;
}

/**
 * One token per idempotent request (API key, Idempotency-Key, fingerprint), given to the
 * operation it runs (GraphQLContext.retryToken): the one secret-free way for a write to know it
 * is the retry of a request it already served.
 */
export function retryTokenOf(request: IdempotentRequest): string {
  return sha256(`${request.apiKeyId}\n${sha256(request.key)}\n${request.fingerprint}`);
}

/** What makes two requests "the same": operation and body, with the body's key order ignored. */
export function fingerprintOf(method: string, path: string, body: unknown): string {
  return sha256(`${method} ${path}\n${canonicalJson(body)}`);
}

/**
 * Idempotency of the POSTs, shared by every instance through MongoDB. The first request with
 * a key inserts an IN_PROGRESS record (the unique index picks one winner among concurrent
 * firsts), runs, and stores its answer; a repeat with the same body gets that answer back, a
 * repeat with another body 422, and a repeat while the first still runs 409 (retry later).
 * 5xx answers and thrown failures are not kept: the record is removed, so a retry runs again.
 *
 * The answer of a write that succeeds is stored with the write, in its transaction (the
 * operation is handed `completionOf`): a retry at any time after the write committed, a crash
 * of the service in between included, gets that answer back. An attempt that died before its
 * write committed is superseded once its lease has passed; the retry runs with the same retry
 * token, so the write keeps its id and is stored once (on a standalone MongoDB too).
 */
export class Idempotency {
  constructor(
    private readonly records: IdempotencyRepository,
    private readonly logger: Logger,
    /** WRITE_LEASE_MS: longest an attempt may hold a key before another request with it may run in its place */
    private readonly leaseMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async run(
    request: IdempotentRequest,
    execute: (completionOf: CompletionOf) => Promise<RestResponse>,
  ): Promise<IdempotentResult> {
    const keyHash = sha256(request.key);
    for (let round = 0; round < 3; round++) {
      const now = this.clock.now();
      const attempt = randomUUID();
      const leaseUntil = new Date(now.getTime() + this.leaseMs);
      const existing = await this.records.claim({
        apiKeyId: request.apiKeyId,
        keyHash,
        fingerprint: request.fingerprint,
        state: 'IN_PROGRESS',
        attempt,
        createdDate: now,
        leaseUntil,
      });
      if (existing === null)
        return { response: await this.execute(request.apiKeyId, keyHash, attempt, execute), replayed: false };

      if (isExpired(existing, now)) {
        await this.records.release(existing.apiKeyId, existing.keyHash, existing.attempt);
        continue;
      }
      if (existing.fingerprint !== request.fingerprint) {
        throw new RestProblem(
          PROBLEM_TYPES.idempotencyKeyReused,
          'This Idempotency-Key was already used with another request; use a new key for a new request.',
        );
      }
      if (existing.state === 'COMPLETED' && existing.candidateErased === true) {
        return {
          response: {
            status: PROBLEM_TYPES.candidateErased.status,
            body: problemBody(
              PROBLEM_TYPES.candidateErased,
              'The candidate this request registered has been erased since; it is not registered again.',
              request.instance ?? '',
            ),
          },
          replayed: true,
        };
      }
      if (existing.state === 'COMPLETED' && existing.response) {
        return {
          response: { status: existing.response.status, body: JSON.parse(existing.response.body) as unknown },
          replayed: true,
        };
      }
      if (existing.leaseUntil !== undefined && existing.leaseUntil.getTime() <= now.getTime()) {
        if (await this.records.takeOver(existing, attempt, leaseUntil)) {
          return { response: await this.execute(request.apiKeyId, keyHash, attempt, execute), replayed: false };
        }
        continue;
      }
      throw new RestProblem(
        PROBLEM_TYPES.idempotencyInProgress,
        'A request with this Idempotency-Key is still being processed; retry after it has been answered.',
      );
    }
    throw new Error('could not settle the idempotency record');
  }

  private async execute(
    apiKeyId: string,
    keyHash: string,
    attempt: string,
    execute: (completionOf: CompletionOf) => Promise<RestResponse>,
  ): Promise<RestResponse> {
    let response: RestResponse;
    try {
      response = await execute((answer, registered) =>
        this.records.completion(
          apiKeyId,
          keyHash,
          { status: answer.status, body: JSON.stringify(answer.body) },
          registered,
        ),
      );
    } catch (error) {
      await this.records.abandon(apiKeyId, keyHash, attempt).catch(() => undefined);
      throw error;
    }
    try {
      if (response.status >= 500) await this.records.abandon(apiKeyId, keyHash, attempt);
      else
        await this.records.complete(apiKeyId, keyHash, attempt, {
          status: response.status,
          body: JSON.stringify(response.body),
        });
    } catch (error) {
      // The operation ran: its answer goes out. A write stored its answer with it; any other
      // answer is lost, and until the lease passes a retry gets 409.
      this.logger.error({ err: error }, 'could not store the outcome of an idempotent request');
    }
    return response;
  }
}

function isExpired(record: IdempotencyRecord, now: Date): boolean {
  return record.createdDate.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000 <= now.getTime();
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted at every depth, so that key order does not change the hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
