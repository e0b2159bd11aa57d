import type { ChangeFeed } from '../ports/change-feed';
import type { Clock } from '../ports/clock';
import type { ErasurePurge } from '../ports/erasure-purge';
import type { WebhookStore } from '../ports/webhook-store';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Retention of the change feed (CHANGES_RETENTION_DAYS): changes older than that go, and cursors
 * pointing before them are answered 410; so do the webhook deliveries and their attempts, which
 * tell the same changes (and erased people's ids) to whoever reads the delivery log (SPEC §7).
 * Safe to run on several instances at once.
 */
export class PruneChanges {
  constructor(
    private readonly feed: ChangeFeed,
    private readonly webhooks: WebhookStore,
    private readonly erasures: ErasurePurge,
    private readonly clock: Clock,
  ) {}

  /** Returns how many changes were removed. */
  async execute({ retentionDays }: { retentionDays: number }): Promise<number> {
    const before = new Date(this.clock.now().getTime() - retentionDays * DAY_MS);
    const removed = await this.feed.prune(before);
    await this.webhooks.pruneDeliveries(before);
    // An erasure whose purge did not finish (SPEC §8: erased means gone) is finished here.
    await this.erasures.purgeErasures();
    return removed;
  }
}
