import { createHash } from 'node:crypto';
import type { ApiKeyRecord } from '../auth/api-key-repository';
import { systemClock, type Clock } from '../common/clock';
import { BadUserInputError, NotFoundError, OperationNotPublishedError } from '../errors';
import type { PublishedOperation, PublishedOperationRepository } from './published-operation-repository';

/** What a GraphQL request names: its document, its id (the APQ extension's hash), or both. */
export interface OperationRequest {
  query?: string;
  persistedQueryHash?: string;
}

/** What the request runs, or why it is refused (the hash only: the text is never logged). */
export type OperationDecision =
  | { allowed: true; query?: string }
  | { allowed: false; operationId: string | undefined; reason: 'not_published' | 'registration' };

/**
 * Checks one operation of a manifest the way the server would: the schema and the server's
 * abuse limits (cost, depth, aliases). Returns why it fails, or nothing. Built by the caller
 * from the GraphQL layer, so the rules are the server's own and this area stays below it.
 */
export type OperationValidator = (body: string) => readonly string[];

/** `format: apollo-persisted-query-manifest`, version 1, as @apollo/generate-persisted-query-manifest writes it. */
export interface PersistedQueryManifest {
  format: 'apollo-persisted-query-manifest';
  version: 1;
  operations: { id: string; name: string; type: string; body: string }[];
}

export interface PublishResult {
  /** operations of the manifest */
  total: number;
  /** of those, the ones not published for the key before */
  added: number;
}

export function operationIdOf(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/**
 * Trusted documents: the operations published for each key whose policy is `published`, and the
 * rule of which requests such a key may run. Read from the store on every request of such a key,
 * so a retire takes effect at once on every instance; a policy change reaches every instance
 * through the key record's read epoch, as a revocation does.
 */
export class PublishedOperationService {
  constructor(
    private readonly repository: PublishedOperationRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Publishes every operation of the manifest for the key, or none: one operation that is
   * malformed, whose id is not the hash of its text, or that the validator refuses fails the
   * whole manifest, and the error names it (name and id) and why. Idempotent.
   */
  async publish(keyId: string, manifest: unknown, validate: OperationValidator): Promise<PublishResult> {
    const operations = parseManifest(manifest);
    const failures: string[] = [];
    for (const operation of operations) {
      const label = `${operation.name} (${operation.id})`;
      if (operationIdOf(operation.body) !== operation.id) {
        failures.push(`${label}: the id is not the SHA-256 of the body`);
        continue;
      }
      for (const reason of validate(operation.body)) failures.push(`${label}: ${reason}`);
    }
    if (failures.length > 0) {
      throw new BadUserInputError(`The manifest was not published. ${failures.join('; ')}`, {
        parameter: 'manifest',
        rule: 'valid_operations',
      });
    }
    const publishedAt = this.clock.now();
    const added = await this.repository.insertMissing(
      operations.map((operation) => ({
        keyId,
        operationId: operation.id,
        name: operation.name,
        type: operation.type,
        body: operation.body,
        publishedAt,
      })),
    );
    return { total: operations.length, added };
  }

  list(keyId?: string): Promise<PublishedOperation[]> {
    return this.repository.list(keyId);
  }

  /**
   * Retires every published operation whose text `retire` picks (of every key); resolves with the
   * key and id of each (never the text).
   */
  async retireWhere(retire: (body: string) => boolean): Promise<{ keyId: string; operationId: string }[]> {
    const picked = (await this.repository.list()).filter((operation) => retire(operation.body));
    for (const { keyId, operationId } of picked) await this.repository.remove(keyId, operationId);
    return picked.map(({ keyId, operationId }) => ({ keyId, operationId }));
  }

  /** Retires one operation of the key (by id) or all of them; NotFoundError when nothing matched. */
  async retire(keyId: string, operationId?: string): Promise<number> {
    const removed = await this.repository.remove(keyId, operationId);
    if (removed === 0) throw new NotFoundError('No published operation matches.');
    return removed;
  }

  /**
   * What a request of this key runs. An `any` key: the request as sent (automatic persisted
   * queries included). A `published` key: a published operation, by id alone (the text is then
   * the published one) or by its exact text; never an APQ registration.
   */
  async decide(key: Pick<ApiKeyRecord, 'id' | 'operations'>, request: OperationRequest): Promise<OperationDecision> {
    if (key.operations !== 'published') return { allowed: true };
    const { query, persistedQueryHash } = request;
    if (persistedQueryHash !== undefined && query !== undefined) {
      return { allowed: false, operationId: persistedQueryHash, reason: 'registration' };
    }
    const operationId = persistedQueryHash ?? (query === undefined ? undefined : operationIdOf(query));
    const published = operationId === undefined ? null : await this.repository.find(key.id, operationId);
    if (published === null) return { allowed: false, operationId, reason: 'not_published' };
    return { allowed: true, query: published.body };
  }

  /** The error a refused request answers with: the same for every reason, so it tells nothing about what is published. */
  refusal(): OperationNotPublishedError {
    return new OperationNotPublishedError(
      'This API key may run only the operations published for it: send a published operation by its id or its exact text (automatic persisted queries are off for it).',
    );
  }
}

function parseManifest(manifest: unknown): PersistedQueryManifest['operations'] {
  const invalid = (why: string) =>
    new BadUserInputError(`The manifest is not an Apollo persisted query manifest: ${why}.`, {
      parameter: 'manifest',
      rule: 'format',
    });
  if (typeof manifest !== 'object' || manifest === null) throw invalid('not an object');
  const { format, version, operations } = manifest as Partial<PersistedQueryManifest>;
  if (format !== 'apollo-persisted-query-manifest') throw invalid('format is not apollo-persisted-query-manifest');
  if (version !== 1) throw invalid('version is not 1');
  if (!Array.isArray(operations) || operations.length === 0) throw invalid('no operations');
  for (const [index, operation] of operations.entries()) {
    const fields = operation as Record<string, unknown>;
    if (!['id', 'name', 'type', 'body'].every((field) => typeof fields?.[field] === 'string')) {
      throw invalid(`operation ${index} lacks a string id, name, type or body`);
    }
  }
  return operations.map(({ id, name, type, body }) => ({ id, name, type, body }));
}
