import type { Clock } from '../ports/clock';
import type { WebhookStore } from '../ports/webhook-store';
import { NotFound } from '../../domain/errors';
import { PREVIOUS_SECRET_LIFETIME_MS } from '../../domain/webhook';
import { newWebhookSecret } from './webhook-secret';

export interface RotatedSecret {
  secret: string;
  /** Until then every delivery carries a signature by the old secret too. */
  previousValidUntil: Date;
}

/**
 * Gives a subscription a new secret. The old one keeps signing beside it for 24 hours, so the
 * receiver can switch without refusing a delivery. A second rotation within the day retires the
 * first old secret at once: only the two latest sign.
 */
export class RotateWebhookSecret {
  constructor(
    private readonly store: WebhookStore,
    private readonly clock: Clock,
  ) {}

  async execute({ id }: { id: number }): Promise<RotatedSecret> {
    const secret = newWebhookSecret();
    const previousValidUntil = new Date(this.clock.now().getTime() + PREVIOUS_SECRET_LIFETIME_MS);
    const rotated = await this.store.rotateSecret(id, secret, previousValidUntil);
    if (rotated === null) throw new NotFound(`no webhook subscription ${id}`);
    return { secret, previousValidUntil };
  }
}
