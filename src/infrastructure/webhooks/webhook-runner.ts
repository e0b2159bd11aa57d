import type { Logger } from 'pino';
import type { DeliverWebhooks } from '../../application/webhooks/deliver-webhooks';
import type { ClaimedDelivery } from '../../application/ports/webhook-store';

export interface WebhookRunnerOptions {
  /** Sends in flight at most, per instance. */
  concurrency: number;
  /** How often to look for work when nothing woke the runner. */
  pollIntervalMs: number;
  logger: Logger;
  /** Called once stopped: closes the sender's kept-alive connections. */
  closeSender?: () => void;
}

/** How long a shutdown waits for sends in flight before cancelling them. */
const STOP_GRACE_MS = 2000;

/**
 * Changes notified closer together than this are dispatched together. Under a PATCH load every
 * commit notifies; dispatching for each kept the runner looping on the database without pause.
 */
const DISPATCH_EVERY_MS = 25;

/**
 * Runs the webhook engine in the background of the service: dispatches changes, claims due
 * deliveries and sends them, at most `concurrency` at once, never on a request's path. It looks
 * for work when woken (a PostgreSQL notification, a send finished, a command of the tool ended)
 * and every `pollIntervalMs` otherwise, sooner when a retry falls due before that.
 */
export class WebhookRunner {
  private running = false;
  private loop: Promise<void> | null = null;
  private woken = false;
  /** Whether changes may wait for the dispatcher: set by wake(), and by every poll. */
  private changesMayWait = true;
  private lastDispatch = 0;
  private wakeSleeper: (() => void) | null = null;
  private dispatchTimer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Map<ClaimedDelivery, Promise<void>>();
  private readonly cancel = new AbortController();
  private failing = false;

  constructor(
    private readonly engine: DeliverWebhooks,
    private readonly options: WebhookRunnerOptions,
  ) {}

  get sending(): number {
    return this.inFlight.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Something may be waiting (changes or deliveries): look now rather than at the next poll, or
   * DISPATCH_EVERY_MS after the last dispatch if that is later.
   */
  wake(): void {
    this.changesMayWait = true;
    const soonest = this.lastDispatch + DISPATCH_EVERY_MS - Date.now();
    if (soonest <= 0) {
      this.wakeForDeliveries();
    } else {
      this.dispatchTimer ??= setTimeout(() => {
        this.dispatchTimer = null;
        this.wakeForDeliveries();
      }, soonest);
    }
  }

  /** A send ended: claim again, without asking whether changes wait. */
  private wakeForDeliveries(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  /**
   * Stops claiming, waits up to 2 s for sends in flight, then cancels the rest: each is recorded
   * as a cancelled attempt and due again at once, for whichever instance is up (its lease is
   * cleared, or runs out should the database be gone too).
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.dispatchTimer !== null) clearTimeout(this.dispatchTimer);
    this.dispatchTimer = null;
    this.wakeForDeliveries();
    await this.loop;
    const sends = [...this.inFlight.values()];
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_GRACE_MS);
    });
    await Promise.race([Promise.all(sends), grace]);
    clearTimeout(timer);
    this.cancel.abort();
    await Promise.all(sends);
    this.options.closeSender?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let nextDueInMs: number | null = null;
      try {
        const sinceDispatch = Date.now() - this.lastDispatch;
        if (
          (this.changesMayWait && sinceDispatch >= DISPATCH_EVERY_MS) ||
          sinceDispatch >= this.options.pollIntervalMs
        ) {
          this.changesMayWait = false;
          this.lastDispatch = Date.now();
          await this.engine.dispatch();
        }
        nextDueInMs = await this.claimAndSend();
        if (this.failing) this.options.logger.info('webhooks: the database answers again');
        this.failing = false;
      } catch (error) {
        // The database is away: polling goes on, and the outage is logged once.
        if (!this.failing) this.options.logger.warn({ err: error }, 'webhooks: cannot reach the database');
        this.failing = true;
      }
      if (!this.running) break;
      if (this.woken) continue;
      const wait =
        nextDueInMs === null
          ? this.options.pollIntervalMs
          : Math.max(0, Math.min(this.options.pollIntervalMs, nextDueInMs));
      await this.sleep(wait);
    }
  }

  /** Starts sends for due deliveries; answers in how many ms the next one falls due, if known. */
  private async claimAndSend(): Promise<number | null> {
    const room = this.options.concurrency - this.inFlight.size;
    if (room <= 0) return null;
    const claims = await this.engine.claim(room);
    for (const claim of claims) this.send(claim);
    if (claims.length === room) return 0;
    // A send in flight wakes the runner when it ends, and it asks then.
    if (this.inFlight.size > 0) return null;
    return this.engine.msUntilNextDue();
  }

  private send(claim: ClaimedDelivery): void {
    const done = this.engine
      .deliver(claim, this.cancel.signal)
      .then(() => undefined)
      .catch((error: unknown) => {
        // The outcome could not be written; the lease runs out and the delivery is sent again.
        this.options.logger.warn({ err: error, delivery: claim.id }, 'webhooks: recording an attempt failed');
      })
      .finally(() => {
        this.inFlight.delete(claim);
        if (this.running) this.wakeForDeliveries();
      });
    this.inFlight.set(claim, done);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleeper = () => {
        this.wakeSleeper = null;
        finish();
      };
    });
  }
}
