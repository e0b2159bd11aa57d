import { Counter, Gauge, Registry } from 'prom-client';
import type { WebhookAttemptOutcome } from '../../application/ports/operator-events';
import type { WebhookBacklog } from '../../application/ports/webhook-store';

const OUTCOMES: WebhookAttemptOutcome[] = ['delivered', 'retrying', 'failed', 'cancelled'];

/** A scrape waits no longer than this for the webhooks' backlog: a slow database must not hang /metrics. */
const BACKLOG_TIMEOUT_MS = 2000;

/**
 * The metrics beyond HTTP (SPEC §5): webhook deliveries by outcome and how far behind each
 * subscription is, sign-in lockouts and password-check refusals. One registry per container, that
 * is per process in production; every app of the container serves it on /metrics beside its own.
 */
export class OperatorMetrics {
  readonly registry = new Registry();

  readonly webhookAttempts = new Counter({
    name: 'webhook_deliveries_total',
    help:
      'Webhook sends, by outcome: delivered (a 2xx), retrying (failed, tried again later), failed ' +
      '(failed and given up: 410, or 3 days without success), cancelled (cut short by a shutdown, sent again).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly lockouts = new Counter({
    name: 'signin_lockouts_total',
    help: 'Sign-in lockouts started: a username or client address reached 10 failed attempts in 15 minutes.',
    registers: [this.registry],
  });

  readonly passwordCheckRefusals = new Counter({
    name: 'signin_password_check_refusals_total',
    help: 'Sign-ins refused with 503 because their password check could not start within a second.',
    registers: [this.registry],
  });

  /**
   * redis_up, only where REDIS_URL is set: absent, it says Redis is not used rather than down. Read
   * at each scrape from the connection's own state, so it cannot disagree with the log's lines.
   */
  watchRedis(isUp: () => boolean): void {
    new Gauge({
      name: 'redis_up',
      help: '1 while Redis answers; 0 while it is lost, when sign-in lockouts and rate limits count per instance.',
      registers: [this.registry],
      collect() {
        this.set(isUp() ? 1 : 0);
      },
    });
  }

  /** `backlog` reads how far behind each subscription is, at each scrape. */
  constructor(backlog: () => Promise<WebhookBacklog[]>) {
    for (const outcome of OUTCOMES) this.webhookAttempts.inc({ outcome }, 0);
    const perSubscription = (name: string, help: string) =>
      new Gauge({
        name,
        help: `Per subscription: ${help}`,
        labelNames: ['subscription'] as const,
        registers: [this.registry],
        collect: () => collect(),
      });
    const oldest = perSubscription(
      'webhook_oldest_undelivered_age_seconds',
      'age of the oldest change not yet delivered to it (waiting for a retry, not yet sent, or kept while it is disabled); 0 when ' +
        'it is up to date.',
    );
    const undelivered = perSubscription(
      'webhook_undelivered_changes',
      'changes not yet delivered to it (waiting for a retry, not yet sent, or kept while it is disabled).',
    );
    const disabled = perSubscription(
      'webhook_subscription_disabled',
      '1 when it is disabled (410 Gone, 3 days without success, or a restore) until `webhooks enable`.',
    );
    // The three are read together, in one query, by whichever of them the scrape collects first.
    let reading: Promise<void> | null = null;
    const read = async () => {
      let rows: WebhookBacklog[] | null;
      let timer: NodeJS.Timeout | undefined;
      try {
        rows = await Promise.race([
          backlog(),
          new Promise<null>((resolve) => {
            timer = setTimeout(() => resolve(null), BACKLOG_TIMEOUT_MS);
          }),
        ]);
      } catch {
        // The database is away (its own log line says so): no figures rather than stale ones.
        rows = null;
      } finally {
        clearTimeout(timer);
      }
      for (const gauge of [oldest, undelivered, disabled]) gauge.reset();
      const now = Date.now();
      for (const row of rows ?? []) {
        const labels = { subscription: String(row.subscriptionId) };
        oldest.set(labels, row.oldestAt === null ? 0 : Math.max(0, (now - row.oldestAt.getTime()) / 1000));
        undelivered.set(labels, row.changes);
        disabled.set(labels, row.disabled ? 1 : 0);
      }
    };
    function collect(): Promise<void> {
      reading ??= read().finally(() => {
        reading = null;
      });
      return reading;
    }
  }
}
