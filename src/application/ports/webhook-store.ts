import type { ChangeType } from './change-log';

export interface WebhookSubscription {
  id: number;
  url: string;
  /** The change types sent; null: all of them. */
  events: ChangeType[] | null;
  createdAt: Date;
  /** Set while the previous secret still signs beside the new one. */
  previousSecretExpiresAt: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
}

export interface NewWebhookSubscription {
  url: string;
  events: ChangeType[] | null;
  secret: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookAttempt {
  at: Date;
  /** The receiver's HTTP status; null when none came (refused, timed out, cancelled). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface WebhookDelivery {
  id: number;
  subscriptionId: number;
  seq: number;
  type: string;
  messageId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
  /** Oldest first. */
  attemptLog: WebhookAttempt[];
}

/** A delivery this instance holds the lease of, with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  subscriptionId: number;
  messageId: string;
  url: string;
  payload: string;
  /** Every secret that signs now: the current one first, then the previous during a rotation. */
  secrets: string[];
  /** Failures since it was created or redelivered by hand. */
  failures: number;
  /** When its retrying began: created, or redelivered by hand. */
  retryingSince: Date;
  /** When its subscription last stopped succeeding; null while it succeeds. */
  failingSince: Date | null;
  /** The lease this claim holds: the outcome is recorded only while the lease is still ours. */
  leaseUntil: Date;
}

/** What becomes of a claimed delivery once the attempt is over. */
export type DeliveryOutcome =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: Date; countsAsFailure: boolean }
  /**
   * Given up: 410, or three days of failures. With a reason the subscription is disabled too, and
   * its other pending deliveries marked failed.
   */
  | { status: 'failed'; disableSubscription: string | null };

export interface WebhookStore {
  addSubscription(subscription: NewWebhookSubscription): Promise<WebhookSubscription>;
  listSubscriptions(): Promise<WebhookSubscription[]>;
  /** False when there is no such subscription. Its deliveries and attempts go with it. */
  removeSubscription(id: number): Promise<boolean>;
  /** The new secret signs from now on, the old one beside it until `previousExpiresAt`. */
  rotateSecret(id: number, secret: string, previousExpiresAt: Date): Promise<WebhookSubscription | null>;
  findSubscription(id: number): Promise<WebhookSubscription | null>;
  /** Newest first, at most `limit`; `failedOnly` keeps failed ones and pending ones that failed. */
  listDeliveries(
    subscriptionId: number,
    options: { failedOnly: boolean; limit: number },
  ): Promise<WebhookDelivery[]>;
  findDelivery(id: number): Promise<WebhookDelivery | null>;
  /** Makes the delivery pending and due at `now`, with a fresh three days of retries. */
  redeliver(id: number, now: Date): Promise<void>;

  /**
   * Turns changes after the dispatcher's cursor (at most `limit`) into deliveries for every
   * enabled subscription they match, and moves the cursor past them, atomically. Null when
   * another instance is dispatching right now; otherwise how many changes were read and how many
   * deliveries queued. Cheap when nothing waits: the runner polls with it.
   */
  dispatch(now: Date, limit: number): Promise<{ changes: number; deliveries: number } | null>;
  /**
   * Leases up to `limit` due deliveries of enabled subscriptions until `leaseUntil`; deliveries
   * other instances are claiming at the same moment are skipped, never waited for.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records the attempt and the outcome, if the lease is still `claim`'s (another instance may
   * have taken over an expired one). False when it was not.
   */
  finish(claim: ClaimedDelivery, attempt: WebhookAttempt, outcome: DeliveryOutcome): Promise<boolean>;
  /** Gives the lease back without an attempt: another instance may send it at once. */
  release(claim: ClaimedDelivery): Promise<void>;
  /**
   * When the next pending delivery of an enabled subscription that no lease holds at `now` falls
   * due; null: none. A lease in force is its holder's to end: should the holder die, the runner's
   * poll finds the delivery once the lease has run out.
   */
  nextDueAt(now: Date): Promise<Date | null>;
}
