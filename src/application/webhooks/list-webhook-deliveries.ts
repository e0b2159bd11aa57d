import type { WebhookDelivery, WebhookStore } from '../ports/webhook-store';
import { NotFound } from '../../domain/errors';

export interface ListWebhookDeliveriesInput {
  subscriptionId: number;
  /** Only those that failed: given up, or still being retried after a failure. */
  failedOnly: boolean;
  limit: number;
}

/** A subscription's deliveries, newest first, each with its attempts. */
export class ListWebhookDeliveries {
  constructor(private readonly store: WebhookStore) {}

  async execute({
    subscriptionId,
    failedOnly,
    limit,
  }: ListWebhookDeliveriesInput): Promise<WebhookDelivery[]> {
    if ((await this.store.findSubscription(subscriptionId)) === null) {
      throw new NotFound(`no webhook subscription ${subscriptionId}`);
    }
    return this.store.listDeliveries(subscriptionId, { failedOnly, limit });
  }
}
