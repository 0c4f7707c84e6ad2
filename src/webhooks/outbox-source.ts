import type { Db } from 'mongodb';
import type { OutboxEvent, OutboxSource } from './webhook-event';

/** The change outbox (src/changes/) as the dispatcher reads it. */
export function changeOutbox(db: Db): OutboxSource {
  const events = db.collection<OutboxEvent>('changeEvents');
  return {
    readAfter: (after, limit) =>
      events
        .find({ seq: { $gt: after } }, { projection: { _id: 0 }, sort: { seq: 1 } })
        .limit(limit)
        .toArray(),
    latestSeq: async () => (await events.findOne({}, { projection: { _id: 0, seq: 1 }, sort: { seq: -1 } }))?.seq ?? 0,
  };
}
