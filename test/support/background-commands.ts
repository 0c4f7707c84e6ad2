import type { CommandStartedEvent } from 'mongodb';
import { WEBHOOK_COLLECTIONS } from '../../src/webhooks/webhook-indexes';

const WEBHOOK_COLLECTION_NAMES = new Set<string>(Object.values(WEBHOOK_COLLECTIONS));

/**
 * A command the service sends on its own timers, not for a request: the connection watch's ping
 * (every second, src/store/connection-watch.ts) and the webhook dispatcher's poll of `webhooks`
 * (every WEBHOOK_POLL_MS). A test that counts the commands of a request leaves them out: one may
 * land inside the window it measures.
 */
export function isBackgroundCommand(event: CommandStartedEvent): boolean {
  return event.commandName === 'ping' || WEBHOOK_COLLECTION_NAMES.has(String(event.command[event.commandName]));
}
