import type { Collection, Db, Filter } from 'mongodb';
import type { AuditEventDoc } from './audit-event';
import { AUDIT_COLLECTION } from './audit-indexes';

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
 * The `auditEvents` collection. Append-only: events are inserted and read, never changed or
 * deleted by the service. Driver objects and errors stay here.
 */
export class AuditRepository {
  private readonly collection: Collection<AuditEventDoc>;

  constructor(db: Db) {
    this.collection = db.collection<AuditEventDoc>(AUDIT_COLLECTION);
  }

  async insert(event: AuditEventDoc): Promise<void> {
    // A copy: insertOne adds `_id` to the object it is given.
    await this.collection.insertOne({ ...event });
  }

  /** Events matching the query, newest first (time, then eventId, descending). */
  async find(query: AuditQuery): Promise<AuditEventDoc[]> {
    const conditions: Filter<AuditEventDoc>[] = [];
    if (query.apiKeyId !== undefined) conditions.push({ apiKeyId: query.apiKeyId });
    if (query.from !== undefined) conditions.push({ time: { $gte: query.from } });
    if (query.to !== undefined) conditions.push({ time: { $lt: query.to } });
    if (query.after !== undefined) {
      const { time, eventId } = query.after;
      conditions.push({ $or: [{ time: { $lt: time } }, { time, eventId: { $lt: eventId } }] });
    }
    const filter: Filter<AuditEventDoc> = conditions.length === 0 ? {} : { $and: conditions };
    const docs = await this.collection
      .find(filter, { projection: { _id: 0 } })
      .sort({ time: -1, eventId: -1 })
      .limit(query.limit)
      .toArray();
    return docs.map(toEvent);
  }
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
  return event;
}
