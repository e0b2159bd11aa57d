import type { Logger } from 'pino';
import type {
  OperatorEvents,
  SignInLockout,
  WebhookAttemptEvent,
} from '../../application/ports/operator-events';
import type { OperatorMetrics } from './operator-metrics';

/**
 * Each event an operator must see as a log line of its own, with an `event` field to search and
 * alert on, and counted in the metrics. Lines name subscriptions by id, never by URL: a receiver's
 * URL may carry a token of its own.
 */
export class LoggedOperatorEvents implements OperatorEvents {
  constructor(
    private readonly logger: Logger,
    private readonly metrics: OperatorMetrics,
  ) {}

  signInLockoutStarted({ username, clientAddress, lockedOut }: SignInLockout): void {
    this.metrics.lockouts.inc();
    this.logger.warn(
      { event: 'signin.lockout_started', username, clientAddress, lockedOut },
      `sign-in lockout started: 10 failed attempts in 15 minutes for this ${lockedOut.join(' and ')}`,
    );
  }

  passwordCheckRefused(): void {
    // Counted only: in a storm there is one a request, and the request log has each 503 already.
    this.metrics.passwordCheckRefusals.inc();
  }

  webhookAttempted(event: WebhookAttemptEvent): void {
    this.metrics.webhookAttempts.inc({ outcome: event.outcome });
    if (event.outcome !== 'retrying' && event.outcome !== 'failed') return;
    const gaveUp = event.outcome === 'failed';
    this.logger.warn(
      {
        event: 'webhook.delivery_failed',
        subscriptionId: event.subscriptionId,
        seq: event.seq,
        status: event.statusCode,
        error: event.error,
        attempt: event.attempt,
        nextAttemptAt: event.nextAttemptAt?.toISOString() ?? null,
        gaveUp,
      },
      gaveUp
        ? 'webhook delivery failed; given up (see: webhooks deliveries ID --failed)'
        : `webhook delivery failed; retrying at ${event.nextAttemptAt?.toISOString()}`,
    );
  }

  webhookSubscriptionDisabled({ subscriptionId, reason }: { subscriptionId: number; reason: string }): void {
    this.logger.error(
      { event: 'webhook.subscription_disabled', subscriptionId, reason },
      `webhook subscription disabled: ${reason}; what waits for it is kept, and sent, oldest first, after: webhooks enable ${subscriptionId}`,
    );
  }
}
