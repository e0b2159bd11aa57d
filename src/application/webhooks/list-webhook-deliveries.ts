import type { WebhookDelivery, WebhookStore, WebhookSubscription } from '../ports/webhook-store';
import { NotFound } from '../../domain/errors';

export interface ListWebhookDeliveriesInput {
  subscriptionId: number;
  /** Only those that failed: given up, or still being retried after a failure. */
  failedOnly: boolean;
  limit: number;
}

export interface ListedDeliveries {
  /** Whether it is disabled says what its pending deliveries wait for: a retry, or `webhooks enable`. */
  subscription: WebhookSubscription;
  deliveries: WebhookDelivery[];
}

/** A subscription's deliveries, newest first, each with its attempts. */
export class ListWebhookDeliveries {
  constructor(private readonly store: WebhookStore) {}

  async execute({
    subscriptionId,
    failedOnly,
    limit,
  }: ListWebhookDeliveriesInput): Promise<ListedDeliveries> {
    const subscription = await this.store.findSubscription(subscriptionId);
    if (subscription === null) throw new NotFound(`no webhook subscription ${subscriptionId}`);
    return {
      subscription,
      deliveries: await this.store.listDeliveries(subscriptionId, { failedOnly, limit }),
    };
  }
}
