import { MongoBulkWriteError, type ClientSession, type Collection, type Db, type Filter } from 'mongodb';
import { isDuplicateKeyWriteError } from '../store/duplicate-key';
import type { AuditEventDoc } from './audit-event';
import { AUDIT_COLLECTION, AUDIT_RETENTION_INDEX } from './audit-indexes';

/** A position in the order of the trail (time, then eventId, both descending). */
export interface AuditPosition {
  time: Date;
  eventId: string;
}

export interface AuditQuery {
  apiKeyId?: string;
  /** inclusive */
  from?: Date;
  /** exclusive */
  to?: Date;
  /** only events after this position (older ones) */
  after?: AuditPosition;
  limit: number;
}

/**
 * Some events of a batch were refused and the others written (the batch is unordered).
 * `failed` holds the refused events' positions in the batch; the driver's error, which quotes
 * the refused documents, is only the `cause`.
 */
export class AuditWriteError extends Error {
  constructor(
    readonly failed: readonly number[],
    options: { cause: unknown },
  ) {
    super(`${failed.length} audit event(s) of a batch were not written`, options);
    this.name = 'AuditWriteError';
  }
}

/** As stored: the eventId is also the `_id`. */
interface StoredAuditEvent extends AuditEventDoc {
  _id: string;
}

/**
 * The `auditEvents` collection. Append-only: events are inserted and read, never changed or
 * deleted by the service; the store's TTL monitor removes those older than the retention
 * (applyAuditRetention). Driver objects and errors stay here.
 */
export class AuditRepository {
  private readonly collection: Collection<StoredAuditEvent>;

  constructor(db: Db) {
    this.collection = db.collection<StoredAuditEvent>(AUDIT_COLLECTION);
  }

  /**
   * Writes the events in one round trip, unordered: one refused event does not stop the others.
   * An event whose eventId is already stored counts as written (a retry of a batch whose answer
   * was lost). When some are refused otherwise, an AuditWriteError names them; any other failure
   * leaves which events were written unknown and is thrown as it is.
   */
  async insertMany(events: readonly AuditEventDoc[]): Promise<void> {
    if (events.length === 0) return;
    try {
      await this.collection.insertMany(
        events.map((event) => ({ _id: event.eventId, ...event })),
        { ordered: false },
      );
    } catch (error) {
      const failed = refusedPositions(error, events.length);
      if (failed === undefined) throw error;
      if (failed.length > 0) throw new AuditWriteError(failed, { cause: error });
    }
  }

  /** Writes one event in `session` (the transaction of the write it audits; absent: on its own). */
  async insertInSession(event: AuditEventDoc, session: ClientSession | undefined): Promise<void> {
    await this.collection.insertOne({ _id: event.eventId, ...event }, { session });
  }

  /** Events matching the query, newest first (time, then eventId, descending). */
  async find(query: AuditQuery): Promise<AuditEventDoc[]> {
    const conditions: Filter<StoredAuditEvent>[] = [];
    if (query.apiKeyId !== undefined) conditions.push({ apiKeyId: query.apiKeyId });
    if (query.from !== undefined) conditions.push({ time: { $gte: query.from } });
    if (query.to !== undefined) conditions.push({ time: { $lt: query.to } });
    if (query.after !== undefined) {
      const { time, eventId } = query.after;
      conditions.push({ $or: [{ time: { $lt: time } }, { time, eventId: { $lt: eventId } }] });
    }
    const filter: Filter<StoredAuditEvent> = conditions.length === 0 ? {} : { $and: conditions };
    const docs = await this.collection
      .find(filter, { projection: { _id: 0 } })
      .sort({ time: -1, eventId: -1 })
      .limit(query.limit)
      .toArray();
    return docs.map(toEvent);
  }
}

/**
 * The positions of the refused events when the server answered for every event of the batch:
 * write errors other than duplicates (stored already), no write concern error, and the inserted
 * count making up the rest. Otherwise (a lost connection, a write concern not met) undefined.
 */
function refusedPositions(error: unknown, count: number): number[] | undefined {
  if (!(error instanceof MongoBulkWriteError)) return undefined;
  const writeErrors = [error.writeErrors].flat();
  if (writeErrors.length === 0 || error.result.getWriteConcernError() !== undefined) return undefined;
  if (error.insertedCount + writeErrors.length !== count) return undefined;
  return writeErrors
    .filter((writeError) => !isDuplicateKeyWriteError(writeError))
    .map((writeError) => writeError.index)
    .sort((a, b) => a - b);
}

/** Copies the known fields only, so neither `_id` nor stray fields leave the repository. */
function toEvent(doc: AuditEventDoc): AuditEventDoc {
  const event: AuditEventDoc = {
    eventId: doc.eventId,
    time: doc.time,
    apiKeyId: doc.apiKeyId,
    transport: doc.transport,
    rootFields: [...(doc.rootFields ?? [])],
    candidatePublicIds: [...(doc.candidatePublicIds ?? [])],
    status: doc.status,
  };
  if (typeof doc.operation === 'string') event.operation = doc.operation;
  if (typeof doc.requestId === 'string') event.requestId = doc.requestId;
  if (Array.isArray(doc.statisticsQueries) && doc.statisticsQueries.length > 0) {
    event.statisticsQueries = doc.statisticsQueries.map((query) => ({
      locations: [...query.locations],
      nationalities: [...query.nationalities],
      occupations: [...query.occupations],
      includeEmployed: query.includeEmployed,
      groupBy: [...query.groupBy],
      ...(query.filter !== undefined ? { filter: structuredClone(query.filter) } : {}),
      ...(typeof query.epsilonCharged === 'number' ? { epsilonCharged: query.epsilonCharged } : {}),
      ...(query.preview === true ? { preview: true as const } : {}),
    }));
  }
  return event;
}

/**
 * Makes the TTL index on `time` keep events for `days` (0: no TTL index, events are kept). Run at
 * start: a changed AUDIT_RETENTION_DAYS replaces the index (MongoDB refuses a second index on the
 * same key with other options), an unchanged one is left alone.
 */
export async function applyAuditRetention(db: Db, days: number): Promise<void> {
  const collection = db.collection(AUDIT_COLLECTION);
  const expireAfterSeconds = days * 24 * 60 * 60;
  // A collection not yet created has no indexes (listIndexes answers NamespaceNotFound).
  const indexes: { name?: unknown; expireAfterSeconds?: unknown }[] = await collection
    .listIndexes()
    .toArray()
    .catch(() => []);
  const existing = indexes.find((index) => index.name === AUDIT_RETENTION_INDEX);
  if (existing !== undefined && (days === 0 || existing.expireAfterSeconds !== expireAfterSeconds)) {
    await collection.dropIndex(AUDIT_RETENTION_INDEX);
  }
  if (days > 0 && existing?.expireAfterSeconds !== expireAfterSeconds) {
    await collection.createIndex({ time: 1 }, { name: AUDIT_RETENTION_INDEX, expireAfterSeconds });
  }
}
