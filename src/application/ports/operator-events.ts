/**
 * What an operator must see happen (SPEC §5, "Logs"; "Metrics beyond HTTP"): each event is told
 * as it happens, and the adapter writes its log line and counts it. Telling never fails and never
 * waits: the work that tells it goes on either way.
 */
export interface OperatorEvents {
  /**
   * A wrong password brought a username, a client address or both to the limit of failed
   * sign-ins: further attempts for them are refused until the window lets one go.
   */
  signInLockoutStarted(event: SignInLockout): void;
  /** A sign-in was refused because its password check could not start within a second. */
  passwordCheckRefused(): void;
  /** A webhook was sent once (or the send was cut short by a shutdown), with what came of it. */
  webhookAttempted(event: WebhookAttemptEvent): void;
  /** A subscription was disabled: nothing more is sent to it until `webhooks enable`, which sends what waited. */
  webhookSubscriptionDisabled(event: { subscriptionId: number; reason: string }): void;
}

export interface SignInLockout {
  /** As typed, lower-cased (the throttle counts it so). */
  username: string;
  /** As the lockout counts it (an IPv6 address by its /64, every loopback address as one). */
  clientAddress: string;
  /** Which of the two reached the limit. */
  lockedOut: ('username' | 'client address')[];
}

/**
 * What one attempt led to: `delivered` (a 2xx), `retrying` (it failed and is tried again at
 * `nextAttemptAt`), `failed` (it failed and is given up: 410, or 3 days), `cancelled` (the service
 * stopped during the send: not the receiver's failure, sent again at once).
 */
export type WebhookAttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'cancelled';

export interface WebhookAttemptEvent {
  subscriptionId: number;
  /** The change sent. */
  seq: number;
  /** The receiver's status; null when none came. */
  statusCode: number | null;
  /** Why it did not succeed; null for a 2xx. */
  error: string | null;
  /** 1 for the first attempt of a delivery. */
  attempt: number;
  outcome: WebhookAttemptOutcome;
  /** When it is tried again (`retrying` only). */
  nextAttemptAt: Date | null;
}
