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
  /** The change it sends. */
  seq: number;
  /** Attempts made before this one. */
  attempts: number;
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

/** A change of the log to send to a subscription, as it goes on the wire. */
export interface WindowChange {
  seq: number;
  type: string;
  /** Made from the directory, the subscription and the seq: the same whoever sends it, however often. */
  messageId: string;
  payload: string;
}

/** A subscription this instance holds the lease of, and the changes after its cursor. */
export interface ChangeWindow {
  subscriptionId: number;
  url: string;
  secrets: string[];
  failingSince: Date | null;
  leaseUntil: Date;
  /** Its changes, in seq order: admins and types it does not take are left out. */
  changes: WindowChange[];
  /** Where its cursor goes once the window is recorded: the last change read for it. */
  throughSeq: number;
}

/** What became of one change of a window. */
export interface WindowResult {
  change: WindowChange;
  /** Null: not sent (shutdown, the window's time ran out, the subscription was disabled). */
  attempt: WebhookAttempt | null;
  outcome: DeliveryOutcome;
}

export interface WindowRecord {
  results: WindowResult[];
  /** Whether an attempt succeeded: the failing mark becomes `failingFrom` rather than keeping an older one. */
  succeeded: boolean;
  /** The first failure after the last success (after the window's start when none succeeded). */
  failingFrom: Date | null;
  /** Disables the subscription, for this reason, at this time. */
  disable: { reason: string; at: Date } | null;
}

/** What becomes of a claimed delivery once the attempt is over. */
export type DeliveryOutcome =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: Date; countsAsFailure: boolean }
  /**
   * Given up: 410, or three days of failures. With a reason the subscription is disabled too:
   * then a change never delivered stays pending, as does every change waiting for it, until it is
   * enabled again (SPEC §7: nothing is skipped, disabled or not).
   */
  | { status: 'failed'; disableSubscription: string | null };

/**
 * What waits for a subscription, disabled or not: the changes not yet delivered to it. Nothing of
 * it is dropped while the subscription is disabled; `enableSubscription` sends it.
 */
export interface WebhookBacklog {
  subscriptionId: number;
  disabled: boolean;
  /** Deliveries whose change never reached the receiver, and changes past its cursor that it takes. */
  changes: number;
  /** The changes past its cursor were counted up to a limit: `changes` is a lower bound. */
  orMore: boolean;
  /** When the oldest of them was made; null when there is none. */
  oldestAt: Date | null;
  /** The seq of the oldest of them; null when there is none. */
  oldestSeq: number | null;
}

/** What re-enabling a subscription did. */
export interface EnabledSubscription {
  subscription: WebhookSubscription;
  /** Its pending deliveries (what waited while it was disabled), due now with a fresh three days. */
  requeued: number;
  /**
   * Changes past its cursor that retention removed before they could be sent: the receiver must
   * list /people again to see them.
   */
  changesLost: boolean;
}

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
  /**
   * Sends to a disabled subscription again, keeping its id, secret and cursor: its pending
   * deliveries (what waited) are made due at `now` with a fresh three days and go first, oldest
   * first; then the changes past its cursor follow as usual. Null when there is no such
   * subscription; `requeued` 0 and nothing changed when it was not disabled.
   */
  enableSubscription(id: number, now: Date): Promise<EnabledSubscription | null>;
  /** Every secret that signs for the subscription at `now`; null when there is no such subscription. */
  signingSecrets(id: number, now: Date): Promise<string[] | null>;
  /** How far behind each subscription is, disabled ones included, by id. */
  backlog(): Promise<WebhookBacklog[]>;
  /**
   * Makes the delivery pending and due at `now`, with a fresh three days of retries; the
   * subscription's cursor and its other deliveries are left as they are.
   */
  redeliver(id: number, now: Date): Promise<void>;
  /**
   * Removes the deliveries that are over (delivered or failed) and were created, or last
   * redelivered, before `before`, with their attempts: they are kept as long as changes are
   * (SPEC §7). Returns how many deliveries were removed.
   */
  pruneDeliveries(before: Date): Promise<number>;

  /**
   * Leases up to `limit` enabled subscriptions that are behind the change log (none leased by
   * another instance, which are skipped, never waited for; none with deliveries due that have not
   * failed since they were queued, which go first) until `leaseUntil`, each with the
   * changes after its cursor that it is sent (at most `windowLimit` read past it). Reads nothing
   * of the change log when no subscription is behind.
   */
  claimWindows(now: Date, leaseUntil: Date, limit: number, windowLimit: number): Promise<ChangeWindow[]>;
  /**
   * In one statement, if the window's lease is still its own: a delivery row for each of its
   * changes (with its attempt when it was sent), the subscription's failing mark, or its
   * disabling, and its cursor moved past the window, lease released. False when the lease was
   * no longer the window's (another instance sends the window again, with the same webhook-ids).
   */
  recordWindow(window: ChangeWindow, record: WindowRecord): Promise<boolean>;
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
