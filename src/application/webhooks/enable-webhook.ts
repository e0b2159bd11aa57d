import type { Clock } from '../ports/clock';
import type { WebhookStore, WebhookSubscription } from '../ports/webhook-store';
import { type Behind, behindOf } from './list-webhooks';
import { NotFound } from '../../domain/errors';

export interface EnabledWebhook {
  subscription: WebhookSubscription;
  /** False when it was not disabled: nothing was changed. */
  wasDisabled: boolean;
  /** Deliveries that waited while it was disabled, sent again with a fresh three days. */
  requeued: number;
  /** Changes it missed that retention removed before they could be sent. */
  changesLost: boolean;
  /** What waits for it now, oldest first: the requeued deliveries, then the changes past its cursor. */
  behind: Behind;
}

/**
 * Sends to a disabled subscription again, with its id and secret, from where it stopped: every
 * change that waited for it is delivered, oldest first (the deliveries pending when it was
 * disabled, each with a fresh three days of retries, then the changes committed since, those
 * retention still keeps), and it follows on. A receiver that would rather skip them catches up
 * from GET /changes instead: remove the subscription and add it again. docs/decisions.md,
 * "Webhooks".
 */
export class EnableWebhook {
  constructor(
    private readonly store: WebhookStore,
    private readonly clock: Clock,
  ) {}

  async execute({ id }: { id: number }): Promise<EnabledWebhook> {
    const before = await this.store.findSubscription(id);
    if (before === null) throw new NotFound(`no webhook subscription ${id}`);
    const enabled = await this.store.enableSubscription(id, this.clock.now());
    if (enabled === null) throw new NotFound(`no webhook subscription ${id}`);
    const backlog = await this.store.backlog();
    return {
      subscription: enabled.subscription,
      wasDisabled: before.disabledAt !== null,
      requeued: enabled.requeued,
      changesLost: enabled.changesLost,
      behind: behindOf(backlog.find((row) => row.subscriptionId === id)),
    };
  }
}
