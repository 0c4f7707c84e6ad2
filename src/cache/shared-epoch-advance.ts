import type { Db } from 'mongodb';
import { advanceReadEpoch } from './read-epoch';

/**
 * Advances of the read epoch shared by concurrent writers: a writer waits for the next advance
 * that starts after its write was acknowledged, and every writer waiting for it is served by
 * it. That is what each writer's own advance guarantees (a read that starts after the writer is
 * answered sees its write), for one update command per round instead of one per write: under a
 * load of registrations the epoch document is updated a few times per fsync, not once per
 * registration. The mirror image of ReadEpoch's shared reads.
 */
export class SharedEpochAdvance {
  private inFlight: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  /** Resolves once an advance that started after this call is acknowledged. */
  advance(): Promise<void> {
    if (this.inFlight === undefined) {
      const round = advanceReadEpoch(this.db).finally(() => {
        if (this.inFlight === round) this.inFlight = undefined;
      });
      this.inFlight = round;
      return round;
    }
    // The advance in flight may have started before the caller's write: wait for the next one.
    this.next ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.advance();
      });
    return this.next;
  }
}
