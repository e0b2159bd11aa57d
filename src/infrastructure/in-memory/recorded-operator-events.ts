import type {
  OperatorEvents,
  SignInLockout,
  WebhookAttemptEvent,
} from '../../application/ports/operator-events';

/** Keeps every event told, for tests of the use cases that tell them. */
export class RecordedOperatorEvents implements OperatorEvents {
  readonly lockouts: SignInLockout[] = [];
  passwordCheckRefusals = 0;
  readonly webhookAttempts: WebhookAttemptEvent[] = [];
  readonly disabledSubscriptions: { subscriptionId: number; reason: string }[] = [];

  signInLockoutStarted(event: SignInLockout): void {
    this.lockouts.push(event);
  }

  passwordCheckRefused(): void {
    this.passwordCheckRefusals += 1;
  }

  webhookAttempted(event: WebhookAttemptEvent): void {
    this.webhookAttempts.push(event);
  }

  webhookSubscriptionDisabled(event: { subscriptionId: number; reason: string }): void {
    this.disabledSubscriptions.push(event);
  }
}
