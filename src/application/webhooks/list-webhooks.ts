import type { WebhookBacklog, WebhookStore, WebhookSubscription } from '../ports/webhook-store';

/** How far behind a subscription is: the changes not yet delivered to it, and when the oldest was made. */
export type Behind = Pick<WebhookBacklog, 'changes' | 'orMore' | 'oldestAt'>;

export interface ListedWebhook extends WebhookSubscription {
  behind: Behind;
}

/** A subscription's row of the backlog as how far behind it is; none means nothing to send. */
export function behindOf(row: WebhookBacklog | undefined): Behind {
  return { changes: row?.changes ?? 0, orMore: row?.orMore ?? false, oldestAt: row?.oldestAt ?? null };
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
    return subscriptions.map((subscription) => ({
      ...subscription,
      behind: behindOf(behind.get(subscription.id)),
    }));
  }
}
