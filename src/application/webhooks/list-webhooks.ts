import type { WebhookBacklog, WebhookStore, WebhookSubscription } from '../ports/webhook-store';

export interface ListedWebhook extends WebhookSubscription {
  /** How far behind it is: the changes not yet delivered to it, and when the oldest was made. */
  behind: Pick<WebhookBacklog, 'changes' | 'orMore' | 'oldestAt'>;
}

/** Every subscription, oldest first, with how far behind it is; never a secret. */
export class ListWebhooks {
  constructor(private readonly store: WebhookStore) {}

  async execute(): Promise<ListedWebhook[]> {
    const [subscriptions, backlog] = await Promise.all([
      this.store.listSubscriptions(),
      this.store.backlog(),
    ]);
    const behind = new Map(backlog.map((row) => [row.subscriptionId, row]));
    return subscriptions.map((subscription) => {
      const row = behind.get(subscription.id);
      return {
        ...subscription,
        behind: { changes: row?.changes ?? 0, orMore: row?.orMore ?? false, oldestAt: row?.oldestAt ?? null },
      };
    });
  }
}
