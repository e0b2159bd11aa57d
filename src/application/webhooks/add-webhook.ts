import { CHANGE_TYPES, type ChangeType } from '../ports/change-log';
import type { WebhookStore, WebhookSubscription } from '../ports/webhook-store';
import { InvalidInput } from '../../domain/errors';
import { webhookUrlProblem } from '../../domain/webhook';
import { newWebhookSecret } from './webhook-secret';

/** Every change type a subscription can ask for (SPEC §7). */
export const WEBHOOK_EVENT_TYPES: readonly ChangeType[] = CHANGE_TYPES;

export interface AddWebhookInput {
  url: string;
  /** null: every type. */
  events: string[] | null;
}

export interface AddedWebhook {
  subscription: WebhookSubscription;
  /** Shown once: only the receiver keeps it. */
  secret: string;
}

/** Subscribes a URL to the changes from now on, with a new secret. */
export class AddWebhook {
  constructor(private readonly store: WebhookStore) {}

  async execute({ url, events }: AddWebhookInput): Promise<AddedWebhook> {
    const problem = webhookUrlProblem(url);
    if (problem !== null) throw new InvalidInput(problem);
    if (events !== null) {
      const unknown = events.filter((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
      if (unknown.length > 0) {
        throw new InvalidInput(
          `unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}; the types are ${WEBHOOK_EVENT_TYPES.join(', ')}`,
        );
      }
      if (events.length === 0) throw new InvalidInput('--events names no event type; leave it out for all');
    }
    const secret = newWebhookSecret();
    const subscription = await this.store.addSubscription({
      url,
      events: events === null ? null : ([...new Set(events)] as ChangeType[]),
      secret,
    });
    return { subscription, secret };
  }
}
