import { randomBytes } from 'node:crypto';
import type { Clock } from '../ports/clock';
import type { SendResult, WebhookSender } from '../ports/webhook-sender';
import type { WebhookStore } from '../ports/webhook-store';
import { NotFound } from '../../domain/errors';
import { PING_TYPE } from '../../domain/webhook';

export interface PingResult extends SendResult {
  url: string;
  /** Its `webhook-id`: a new one for each ping, so a receiver never takes one for a duplicate. */
  messageId: string;
}

/**
 * A test delivery, to try a receiver (before enabling a subscription again, or after changing the
 * receiver): `{"type": "webhook.ping", "subscription_id", "at"}` POSTed once, now, signed with the
 * subscription's secrets like every delivery, whether the subscription is enabled or not. It is
 * not a change: nothing is recorded, in the feed or among the deliveries, and it is not retried.
 */
export class PingWebhook {
  constructor(
    private readonly store: WebhookStore,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
  ) {}

  async execute({ id }: { id: number }): Promise<PingResult> {
    const now = this.clock.now();
    const [subscription, secrets] = await Promise.all([
      this.store.findSubscription(id),
      this.store.signingSecrets(id, now),
    ]);
    if (subscription === null || secrets === null) throw new NotFound(`no webhook subscription ${id}`);
    const messageId = `msg_${randomBytes(16).toString('hex')}`;
    const payload = JSON.stringify({ type: PING_TYPE, subscription_id: id, at: now.toISOString() });
    const result = await this.sender.send({ url: subscription.url, messageId, payload, secrets });
    return { ...result, url: subscription.url, messageId };
  }
}
