import { inject, injectable } from 'inversify';
import type { ChangeFeed } from '../ports/change-feed';
import type { Clock } from '../ports/clock';
import { TYPES } from '../ports/tokens';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Retention of the change feed (CHANGES_RETENTION_DAYS): changes older than that go, and cursors
 * pointing before them are answered 410. Safe to run on several instances at once.
 */
@injectable()
export class PruneChanges {
  constructor(
    @inject(TYPES.ChangeFeed) private readonly feed: ChangeFeed,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  /** Returns how many changes were removed. */
  execute({ retentionDays }: { retentionDays: number }): Promise<number> {
    return this.feed.prune(new Date(this.clock.now().getTime() - retentionDays * DAY_MS));
  }
}
