import { inject, injectable } from 'inversify';
import { TYPES } from '../ports/tokens';
import type { WebhookStore, WebhookSubscription } from '../ports/webhook-store';

/** Every subscription, oldest first; never a secret. */
@injectable()
export class ListWebhooks {
  constructor(@inject(TYPES.WebhookStore) private readonly store: WebhookStore) {}

  execute(): Promise<WebhookSubscription[]> {
    return this.store.listSubscriptions();
  }
}
