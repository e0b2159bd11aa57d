import type { WebhookStore } from '../ports/webhook-store';
import { NotFound } from '../../domain/errors';

/** Ends a subscription: nothing more is sent to it, and its deliveries are forgotten. */
export class RemoveWebhook {
  constructor(private readonly store: WebhookStore) {}

  async execute({ id }: { id: number }): Promise<void> {
    if (!(await this.store.removeSubscription(id))) throw new NotFound(`no webhook subscription ${id}`);
  }
}
