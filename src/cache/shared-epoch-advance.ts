import type { Db } from 'mongodb';
import { advanceReadEpoch, SHARED_EPOCH_RUN_DEADLINE_MS } from './read-epoch';
import { RunStartedAfter } from './run-started-after';

/**
 * Advances of the read epoch shared by concurrent writers: a writer waits for the next advance
 * that starts after its write was acknowledged, and every writer waiting for it is served by
 * it. That is what each writer's own advance guarantees (a read that starts after the writer is
 * answered sees its write), for one update command per round instead of one per write: under a
 * load of registrations the epoch document is updated a few times per fsync, not once per
 * registration. The mirror image of ReadEpoch's shared reads.
 */
export class SharedEpochAdvance {
  /** An advance in flight may have started before the caller's write. */
  private readonly advances: RunStartedAfter<void>;

  constructor(db: Db) {
    this.advances = new RunStartedAfter(() => advanceReadEpoch(db), SHARED_EPOCH_RUN_DEADLINE_MS);
  }

  /** Resolves once an advance that started after this call is acknowledged. */
  advance(): Promise<void> {
    return this.advances.run();
  }
}
