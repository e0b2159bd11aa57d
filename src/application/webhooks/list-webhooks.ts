import type { WebhookBacklog, WebhookStore, WebhookSubscription } from '../ports/webhook-store';

/** What waits for a subscription: the changes not yet delivered to it, and the oldest's time and seq. */
export type Behind = Pick<WebhookBacklog, 'changes' | 'orMore' | 'oldestAt' | 'oldestSeq'>;

export interface ListedWebhook extends WebhookSubscription {
  behind: Behind;
}

/** A subscription's row of the backlog as what waits for it; none means nothing waits. */
export function behindOf(row: WebhookBacklog | undefined): Behind {
  return {
    changes: row?.changes ?? 0,
    orMore: row?.orMore ?? false,
    oldestAt: row?.oldestAt ?? null,
    oldestSeq: row?.oldestSeq ?? null,
  };
}

/** Every subscription, oldest first, with what waits for it (disabled or not); never a secret. */
export class ListWebhooks {
  constructor(private readonly store: WebhookStore) {}

  async execute(): Promise<ListedWebhook[]> {
    const [subscriptions, backlog] = await Promise.all([
      this.store.listSubscriptions(),
      this.store.backlog(),
    ]);
    const behind = new Map(backlog.map((row) => [row.subscriptionId, row]));
    return subscriptions.map((subscription) => ({
      ...subscription,
      behind: behindOf(behind.get(subscription.id)),
    }));
  }
}
