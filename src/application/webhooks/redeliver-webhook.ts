import type { Clock } from '../ports/clock';
import type { WebhookDelivery, WebhookStore } from '../ports/webhook-store';
import { Conflict, NotFound } from '../../domain/errors';

/**
 * Sends a delivery again, as soon as a running service can: with the same webhook-id (receivers
 * that already have it can tell), a fresh three days of retries, delivered or not before. Only
 * that one: the subscription's cursor and its other deliveries stay as they are, whatever comes of
 * it (a 410 to it disables the subscription, and what waits for it still waits).
 */
export class RedeliverWebhook {
  constructor(
    private readonly store: WebhookStore,
    private readonly clock: Clock,
  ) {}

  async execute({ deliveryId }: { deliveryId: number }): Promise<WebhookDelivery> {
    const delivery = await this.store.findDelivery(deliveryId);
    if (delivery === null) throw new NotFound(`no webhook delivery ${deliveryId}`);
    const subscription = await this.store.findSubscription(delivery.subscriptionId);
    if (subscription?.disabledAt != null) {
      throw new Conflict(
        `subscription ${delivery.subscriptionId} is disabled (${subscription.disabledReason}); enable it again with: webhooks enable ${delivery.subscriptionId}`,
      );
    }
    if (delivery.status === 'pending' && delivery.attempts === 0) return delivery;
    await this.store.redeliver(deliveryId, this.clock.now());
    return (await this.store.findDelivery(deliveryId)) ?? delivery;
  }
}
