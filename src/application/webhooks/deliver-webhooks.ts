import type { Clock } from '../ports/clock';
import type { OperatorEvents, WebhookAttemptOutcome } from '../ports/operator-events';
import type { WebhookMessage, WebhookSender } from '../ports/webhook-sender';
import type {
  ChangeWindow,
  ClaimedDelivery,
  DeliveryOutcome,
  WebhookAttempt,
  WebhookStore,
  WindowChange,
  WindowResult,
} from '../ports/webhook-store';
import { GIVE_UP_AFTER_MS, retryDelayMs, SEND_TIMEOUT_MS } from '../../domain/webhook';
import { windowRecord } from './window-record';

/** Changes read past a subscription's cursor for one window. */
const WINDOW_CHANGES = 200;

/** Longer than a send can take, so that a live instance never loses a lease it is using. */
export const LEASE_MS = SEND_TIMEOUT_MS * 6;

/**
 * A window starts no send after this long, so that its last sends end (SEND_TIMEOUT_MS at most)
 * and it is recorded well inside its lease, however slow the receiver: what it did not send is
 * recorded as due at once, for the retry path.
 */
const WINDOW_SENDS_FOR_MS = LEASE_MS / 2;

/** Where a delivery stands in its retries, which decides what a failed attempt leads to. */
type RetryState = Pick<ClaimedDelivery, 'failures' | 'retryingSince' | 'failingSince'>;

/** Hands out the runner's send slots; null once the runner is stopping. */
export type SendSlots = () => Promise<(() => void) | null>;

const GONE = 410;

function attemptOutcome(outcome: DeliveryOutcome): WebhookAttemptOutcome {
  if (outcome.status !== 'pending') return outcome.status;
  return outcome.countsAsFailure ? 'retrying' : 'cancelled';
}

/**
 * The webhook engine's steps, each one short: claim the subscriptions behind the change log and
 * send each its window of changes, recorded in one go; claim due retries, send one and record
 * what came of it. When and how often they run is the runner's business
 * (infrastructure/webhooks/webhook-runner.ts). Sends happen outside any transaction.
 */
export class DeliverWebhooks {
  constructor(
    private readonly store: WebhookStore,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly events: OperatorEvents,
  ) {}

  /** Leases up to `limit` subscriptions behind the change log, each with its window of changes. */
  claimWindows(limit: number): Promise<ChangeWindow[]> {
    const now = this.clock.now();
    return this.store.claimWindows(now, new Date(now.getTime() + LEASE_MS), limit, WINDOW_CHANGES);
  }

  /**
   * Sends a window's changes, each when `slots` gives room, then records them all in one
   * statement. After a 410 (or three days of failures) nothing more is sent: the rest is recorded
   * failed. False when the lease was lost meanwhile (the window is sent again, same webhook-ids).
   */
  async sendWindow(window: ChangeWindow, slots: SendSlots, signal?: AbortSignal): Promise<boolean> {
    const deadline = this.clock.now().getTime() + WINDOW_SENDS_FOR_MS;
    let givenUp = false;
    const results: Promise<WindowResult>[] = [];
    for (const change of window.changes) {
      const release = givenUp ? null : await slots();
      if (release === null || givenUp || this.clock.now().getTime() >= deadline) {
        release?.();
        results.push(Promise.resolve(this.unsent(change)));
        continue;
      }
      results.push(
        this.sendChange(window, change, signal)
          .then((result) => {
            if (result.outcome.status === 'failed') givenUp = true;
            return result;
          })
          .finally(release),
      );
    }
    const record = windowRecord(await Promise.all(results));
    const recorded = await this.store.recordWindow(window, record);
    if (recorded && record.disable !== null) {
      this.events.webhookSubscriptionDisabled({
        subscriptionId: window.subscriptionId,
        reason: record.disable.reason,
      });
    }
    return recorded;
  }

  private async sendChange(
    window: ChangeWindow,
    change: WindowChange,
    signal?: AbortSignal,
  ): Promise<WindowResult> {
    const message = {
      url: window.url,
      messageId: change.messageId,
      payload: change.payload,
      secrets: window.secrets,
    };
    // A first attempt: no failures yet, its three days counted from now.
    const now = this.clock.now();
    const tried = await this.attempt(
      message,
      { failures: 0, retryingSince: now, failingSince: window.failingSince },
      signal,
    );
    this.tell(window.subscriptionId, change.seq, 1, tried);
    return { change, ...tried };
  }

  /** Sends once and judges the answer: the attempt as it is recorded, and what becomes of it. */
  private async attempt(
    message: WebhookMessage,
    retrying: RetryState,
    signal?: AbortSignal,
  ): Promise<{ attempt: WebhookAttempt; outcome: DeliveryOutcome }> {
    const at = this.clock.now();
    const result = await this.sender.send(message, signal);
    return {
      attempt: { at, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error },
      outcome: this.outcomeOf(retrying, result.statusCode, result.retryAfterMs, signal?.aborted ?? false),
    };
  }

  /** Not sent by this window: due at once, for whichever instance claims it. */
  private unsent(change: WindowChange): WindowResult {
    return {
      change,
      attempt: null,
      outcome: { status: 'pending', nextAttemptAt: this.clock.now(), countsAsFailure: false },
    };
  }

  claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    return this.store.claimDue(now, new Date(now.getTime() + LEASE_MS), limit);
  }

  /** Milliseconds until the next pending delivery falls due (0 when overdue); null: none. */
  async msUntilNextDue(): Promise<number | null> {
    const now = this.clock.now();
    const next = await this.store.nextDueAt(now);
    return next === null ? null : Math.max(0, next.getTime() - now.getTime());
  }

  /** Sends a claimed delivery and records the attempt; `signal` cancels it (shutdown). */
  async deliver(claim: ClaimedDelivery, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const message = {
      url: claim.url,
      messageId: claim.messageId,
      payload: claim.payload,
      secrets: claim.secrets,
    };
    const tried = await this.attempt(message, claim, signal);
    this.tell(claim.subscriptionId, claim.seq, claim.attempts + 1, tried);
    const { attempt, outcome } = tried;
    const recorded = await this.store.finish(claim, attempt, outcome);
    if (recorded && outcome.status === 'failed' && outcome.disableSubscription !== null) {
      this.events.webhookSubscriptionDisabled({
        subscriptionId: claim.subscriptionId,
        reason: outcome.disableSubscription,
      });
    }
    return outcome;
  }

  /** Tells the operator what one attempt led to (a log line when it failed, and the metrics). */
  private tell(
    subscriptionId: number,
    seq: number,
    attemptNumber: number,
    { attempt, outcome }: { attempt: WebhookAttempt; outcome: DeliveryOutcome },
  ): void {
    this.events.webhookAttempted({
      subscriptionId,
      seq,
      statusCode: attempt.statusCode,
      error: attempt.error,
      attempt: attemptNumber,
      outcome: attemptOutcome(outcome),
      nextAttemptAt: outcome.status === 'pending' && outcome.countsAsFailure ? outcome.nextAttemptAt : null,
    });
  }

  /** Gives a claim back unsent: another instance may take it at once. */
  release(claim: ClaimedDelivery): Promise<void> {
    return this.store.release(claim);
  }

  private outcomeOf(
    claim: RetryState,
    statusCode: number | null,
    retryAfterMs: number | null,
    cancelled: boolean,
  ): DeliveryOutcome {
    const now = this.clock.now();
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { status: 'delivered' };
    // Not the receiver's failure: sent again as soon as an instance can.
    if (cancelled) return { status: 'pending', nextAttemptAt: now, countsAsFailure: false };
    if (statusCode === GONE) {
      return { status: 'failed', disableSubscription: 'the receiver answered 410 Gone' };
    }
    const failingFor = now.getTime() - (claim.failingSince ?? now).getTime();
    if (failingFor >= GIVE_UP_AFTER_MS) {
      return { status: 'failed', disableSubscription: 'no delivery succeeded for 3 days' };
    }
    if (now.getTime() - claim.retryingSince.getTime() >= GIVE_UP_AFTER_MS) {
      // The receiver takes other deliveries, just never this one.
      return { status: 'failed', disableSubscription: null };
    }
    const delay = retryDelayMs(claim.failures + 1, retryAfterMs);
    return { status: 'pending', nextAttemptAt: new Date(now.getTime() + delay), countsAsFailure: true };
  }
}
