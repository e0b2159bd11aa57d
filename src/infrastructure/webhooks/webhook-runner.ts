import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { DeliverWebhooks } from '../../application/webhooks/deliver-webhooks';
import type { ClaimedDelivery } from '../../application/ports/webhook-store';
import { isDatabaseUnavailable } from '../persistence/database-errors';

export interface WebhookRunnerOptions {
  /** Sends in flight at most, per instance. */
  concurrency: number;
  /** How often to look for work when nothing woke the runner. */
  pollIntervalMs: number;
  logger: Logger;
}

/** How long a shutdown waits for sends in flight before cancelling them. */
const STOP_GRACE_MS = 2000;

/**
 * Changes notified closer together than this are followed together. Under a PATCH load every
 * commit notifies; claiming windows for each kept the runner looping on the database without pause.
 */
const FOLLOW_EVERY_MS = 25;

/**
 * Above this share of the event loop busy (over the last LOAD_SAMPLE_MS), the service is taken to
 * be answering requests as fast as it can: deliveries are background work and take what the
 * requests leave, one send at a time and one send slot every BUSY_SEND_EVERY_MS at most (about 500
 * a second per instance; the rest waits behind the subscriptions' cursors, at no cost, and is
 * sent at full concurrency once the load eases). docs/decisions.md, "Webhooks", says why.
 */
const BUSY_LOOP = 0.5;
const LOAD_SAMPLE_MS = 250;
const BUSY_SEND_EVERY_MS = 2;

/** Subscriptions leased in one claim: each is a window of changes sent and recorded on its own. */
const WINDOWS_PER_CLAIM = 16;

/**
 * Runs the webhook engine in the background of the service: claims the subscriptions behind the
 * change log and sends their windows of changes, claims due retries and sends them, at most
 * `concurrency` sends at once, never on a request's path. It looks for work when woken (a
 * PostgreSQL notification, a send or window finished, a command of the tool ended) and every
 * `pollIntervalMs` otherwise, sooner when a retry falls due before that.
 */
export class WebhookRunner {
  private running = false;
  private loop: Promise<void> | null = null;
  private woken = false;
  /** Whether changes may wait for a subscription: set by wake(), and by every poll. */
  private changesMayWait = true;
  private lastFollow = 0;
  private wakeSleeper: (() => void) | null = null;
  private followTimer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Map<ClaimedDelivery, Promise<void>>();
  /** Windows being sent; each holds send slots while its sends are in flight. */
  private readonly windows = new Set<Promise<void>>();
  /** Send slots taken by windows. */
  private windowSends = 0;
  /** Windows waiting for a slot, first come first served. */
  private readonly slotWaiters: ((release: (() => void) | null) => void)[] = [];
  private readonly cancel = new AbortController();
  /** What failed at the last look for work, already logged; null when it went well. */
  private failing: 'database' | 'step' | null = null;
  private loadTimer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    private readonly engine: DeliverWebhooks,
    private readonly options: WebhookRunnerOptions,
  ) {}

  /** Sends allowed in flight now: all of them, or one while requests keep the service busy. */
  private get concurrency(): number {
    return this.busy ? 1 : this.options.concurrency;
  }

  get sending(): number {
    return this.inFlight.size + this.windowSends;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    let last: EventLoopUtilization = performance.eventLoopUtilization();
    this.loadTimer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      this.busy = performance.eventLoopUtilization(now, last).utilization >= BUSY_LOOP;
      last = now;
    }, LOAD_SAMPLE_MS);
    this.loadTimer.unref();
    this.loop = this.run();
  }

  /**
   * Something may be waiting (changes or deliveries): look now rather than at the next poll, or
   * FOLLOW_EVERY_MS after the last claim of windows if that is later.
   */
  wake(): void {
    this.changesMayWait = true;
    const soonest = this.lastFollow + FOLLOW_EVERY_MS - Date.now();
    if (soonest <= 0) {
      this.wakeForDeliveries();
    } else {
      this.followTimer ??= setTimeout(() => {
        this.followTimer = null;
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
    if (this.loadTimer !== null) clearInterval(this.loadTimer);
    if (this.followTimer !== null) clearTimeout(this.followTimer);
    this.followTimer = null;
    this.wakeForDeliveries();
    await this.loop;
    // Windows waiting for a slot send nothing more: what they did not send is recorded due.
    for (const waiter of this.slotWaiters.splice(0)) waiter(null);
    const sends = [...this.inFlight.values(), ...this.windows];
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_GRACE_MS);
    });
    await Promise.race([Promise.all(sends), grace]);
    clearTimeout(timer);
    this.cancel.abort();
    await Promise.all(sends);
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let nextDueInMs: number | null = null;
      try {
        const sinceFollow = Date.now() - this.lastFollow;
        if (
          (this.changesMayWait && sinceFollow >= FOLLOW_EVERY_MS) ||
          sinceFollow >= this.options.pollIntervalMs
        ) {
          this.changesMayWait = false;
          this.lastFollow = Date.now();
          await this.followChanges();
        }
        nextDueInMs = await this.claimAndSend();
        this.answered();
      } catch (error) {
        this.failed(error);
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

  /**
   * The runner asks the database something every poll, whether or not anything is to be sent: it
   * is the service's watch on it, and tells the operator, once each, when it is lost and when it
   * answers again (requests meanwhile answer 503, each logged as it fails).
   */
  private failed(error: unknown): void {
    if (this.failing !== null) return;
    if (isDatabaseUnavailable(error)) {
      this.failing = 'database';
      this.options.logger.error(
        { event: 'database.lost', err: error },
        'database lost: requests that need it answer 503 and webhooks wait until it answers again',
      );
    } else {
      this.failing = 'step';
      this.options.logger.warn({ err: error }, 'webhooks: looking for work failed; trying again');
    }
  }

  private answered(): void {
    if (this.failing === 'database') {
      this.options.logger.info({ event: 'database.regained' }, 'database regained: it answers again');
    }
    this.failing = null;
  }

  /** Leases the subscriptions behind the change log and starts sending their windows. */
  private async followChanges(): Promise<void> {
    const windows = await this.engine.claimWindows(WINDOWS_PER_CLAIM);
    for (const window of windows) {
      const done = this.engine
        .sendWindow(window, () => this.takeSlot(), this.cancel.signal)
        .then(() => undefined)
        .catch((error: unknown) => {
          // Not recorded: the lease runs out and the window is sent again, with the same ids.
          this.options.logger.warn(
            { err: error, subscription: window.subscriptionId },
            'webhooks: recording a window failed',
          );
        })
        .finally(() => {
          this.windows.delete(done);
          // The subscription may still be behind (a window holds at most so many changes).
          if (this.running) this.wake();
        });
      this.windows.add(done);
    }
  }

  /** A send slot for a window, once one is free; null once stopping. */
  private takeSlot(): Promise<(() => void) | null> {
    if (!this.running) return Promise.resolve(null);
    if (this.sending < this.concurrency && this.slotWaiters.length === 0) {
      return Promise.resolve(this.slotTaken());
    }
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  private slotTaken(): () => void {
    this.windowSends += 1;
    const taken = performance.now();
    let released = false;
    const free = () => {
      this.windowSends -= 1;
      this.slotFreed();
    };
    return () => {
      if (released) return;
      released = true;
      const early = this.busy && this.running ? BUSY_SEND_EVERY_MS - (performance.now() - taken) : 0;
      if (early > 0) setTimeout(free, early);
      else free();
    };
  }

  /** A send ended: a waiting window takes the slot, or else the runner may claim retries. */
  private slotFreed(): void {
    const waiter = this.running && this.sending < this.concurrency ? this.slotWaiters.shift() : undefined;
    if (waiter !== undefined) waiter(this.slotTaken());
    else if (this.running) this.wakeForDeliveries();
  }

  /** Starts sends for due deliveries; answers in how many ms the next one falls due, if known. */
  private async claimAndSend(): Promise<number | null> {
    // Windows waiting for a slot come first: they hold leases.
    const room = this.concurrency - this.sending - this.slotWaiters.length;
    if (room <= 0) return null;
    const claims = await this.engine.claim(room);
    for (const claim of claims) this.send(claim);
    if (claims.length === room) return 0;
    // A send in flight wakes the runner when it ends, and it asks then.
    if (this.sending > 0) return null;
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
        this.slotFreed();
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
