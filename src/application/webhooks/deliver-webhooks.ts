import { inject, injectable } from 'inversify';
import type { Clock } from '../ports/clock';
import { TYPES } from '../ports/tokens';
import type { WebhookSender } from '../ports/webhook-sender';
import type { ClaimedDelivery, DeliveryOutcome, WebhookStore } from '../ports/webhook-store';
import { GIVE_UP_AFTER_MS, retryDelayMs, SEND_TIMEOUT_MS } from '../../domain/webhook';

/** Changes read by the dispatcher in one transaction. */
const DISPATCH_BATCH = 500;

/** Longer than a send can take, so that a live instance never loses a lease it is using. */
export const LEASE_MS = SEND_TIMEOUT_MS * 6;

const GONE = 410;

/**
 * The webhook engine's steps, each one short: turn changes into deliveries, claim due ones, send
 * one and record what came of it. When and how often they run is the runner's business
 * (infrastructure/webhooks/webhook-runner.ts). Sends happen outside any transaction.
 */
@injectable()
export class DeliverWebhooks {
  constructor(
    @inject(TYPES.WebhookStore) private readonly store: WebhookStore,
    @inject(TYPES.WebhookSender) private readonly sender: WebhookSender,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  /**
   * Dispatches until no change waits. Answers the deliveries queued, or null when another
   * instance is dispatching (it will see whatever this one would have).
   */
  async dispatch(): Promise<number | null> {
    let queued = 0;
    for (;;) {
      const done = await this.store.dispatch(this.clock.now(), DISPATCH_BATCH);
      if (done === null) return queued === 0 ? null : queued;
      queued += done.deliveries;
      if (done.changes < DISPATCH_BATCH) return queued;
    }
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
    const at = this.clock.now();
    const result = await this.sender.send(
      { url: claim.url, messageId: claim.messageId, payload: claim.payload, secrets: claim.secrets },
      signal,
    );
    const outcome = this.outcomeOf(claim, result.statusCode, result.retryAfterMs, signal?.aborted ?? false);
    await this.store.finish(
      claim,
      { at, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error },
      outcome,
    );
    return outcome;
  }

  /** Gives a claim back unsent: another instance may take it at once. */
  release(claim: ClaimedDelivery): Promise<void> {
    return this.store.release(claim);
  }

  private outcomeOf(
    claim: ClaimedDelivery,
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
