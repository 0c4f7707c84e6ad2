import type { Db } from 'mongodb';
import { ChangeEventRepository } from '../changes/change-events';
import type { OutboxSource } from './webhook-event';

/** The change outbox (src/changes/) as the dispatcher reads it. */
export function changeOutbox(db: Db): OutboxSource {
  const changes = new ChangeEventRepository(db);
  return {
    readAfter: (after, limit) => changes.readAfter(after, limit),
    latestSeq: () => changes.lastSeq(),
  };
}
