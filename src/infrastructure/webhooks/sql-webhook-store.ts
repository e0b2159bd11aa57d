import type { DataSource, EntityManager } from 'typeorm';
import type { ChangeType } from '../../application/ports/change-log';
import type {
  ChangeWindow,
  ClaimedDelivery,
  DeliveryOutcome,
  EnabledSubscription,
  NewWebhookSubscription,
  WebhookAttempt,
  WebhookBacklog,
  WebhookDelivery,
  WebhookStore,
  WebhookSubscription,
  WindowRecord,
} from '../../application/ports/webhook-store';
import { retryOnDeadlock, withDatabaseErrors } from '../persistence/database-errors';
import { DeliveryOutcomeWriter } from './delivery-outcome-writer';
import { countsAsFailure } from '../../application/webhooks/failing-mark';
import type { WebhookWire } from './webhook-payload';
import { RECORD_WINDOW_SQL } from './webhook-window-sql';
import { BACKLOG_SQL } from './webhook-waiting-sql';
import { writeGivingUp } from './delivery-give-up';
import { returned } from './returned-rows';
import { readDeliveries } from './delivery-rows';
import { claimDueDeliveries, nextDueAt } from './due-deliveries';
import { secretsOf } from './signing-secrets';
import { claimChangeWindows } from './change-windows';

/** Every instance LISTENs here (PostgreSQL): a delivery was made due by hand. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';

/** Raised by a trigger on `changes` (see the migration): a change committed. */
export const CHANGES_CHANNEL = 'directory_changes';

interface SubscriptionRow {
  id: number;
  url: string;
  events: string[] | null;
  created_at: Date;
  previous_secret_expires_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

const SUBSCRIPTION_COLUMNS =
  'id, url, events, created_at, previous_secret_expires_at, disabled_at, disabled_reason';

function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    id: Number(row.id),
    url: row.url,
    events: row.events as ChangeType[] | null,
    createdAt: row.created_at,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
  };
}

/**
 * The webhook queue on our own tables, by SQL only (like contacts and memberships: no
 * EntitySchema). Claims use `FOR UPDATE SKIP LOCKED` and a lease, so that instances never wait
 * for each other and a delivery whose instance died is taken over once its lease has run out.
 */
export class SqlWebhookStore implements WebhookStore {
  private readonly outcomes: DeliveryOutcomeWriter;
  private wireMaker: Promise<WebhookWire> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly wireOf: (manager: EntityManager) => Promise<WebhookWire>,
  ) {
    this.outcomes = new DeliveryOutcomeWriter(dataSource);
  }

  addSubscription({ url, events, secret }: NewWebhookSubscription): Promise<WebhookSubscription> {
    return withDatabaseErrors(async () => {
      // Changes committed before the subscription existed are not sent to it.
      const [row] = await this.dataSource.query(
        `INSERT INTO webhook_subscriptions (url, events, secret, sent_seq)
         VALUES ($1, $2, $3, (SELECT coalesce(max(seq), 0) FROM changes))
         RETURNING ${SUBSCRIPTION_COLUMNS}`,
        [url, events, secret],
      );
      return toSubscription(row);
    });
  }

  listSubscriptions(): Promise<WebhookSubscription[]> {
    return withDatabaseErrors(async () => {
      const rows = await this.dataSource.query(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions ORDER BY id`,
      );
      return rows.map(toSubscription);
    });
  }

  findSubscription(id: number): Promise<WebhookSubscription | null> {
    return withDatabaseErrors(async () => {
      const [row] = await this.dataSource.query(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = $1`,
        [id],
      );
      return row === undefined ? null : toSubscription(row);
    });
  }

  removeSubscription(id: number): Promise<boolean> {
    // Recording a window that disables the subscription locks it before its pending deliveries,
    // the other order from a batch of outcomes: no one order suits both, so a deadlock with the
    // rarer of the two (a 410 or three days of failures at that very moment) is run again.
    return withDatabaseErrors(() =>
      retryOnDeadlock(() =>
        this.dataSource.transaction(async (manager) => {
          // Its deliveries locked first, by id, as the outcomes of attempts are written: the
          // cascade below would otherwise lock them in its own order, and could deadlock with a
          // batch of outcomes holding some of them.
          await manager.query(
            'SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id FOR UPDATE',
            [id],
          );
          const [{ removed }] = await manager.query(
            'WITH gone AS (DELETE FROM webhook_subscriptions WHERE id = $1 RETURNING id) SELECT count(*)::int AS removed FROM gone',
            [id],
          );
          return removed > 0;
        }),
      ),
    );
  }

  rotateSecret(id: number, secret: string, previousExpiresAt: Date): Promise<WebhookSubscription | null> {
    return withDatabaseErrors(async () => {
      const [row] = returned(
        await this.dataSource.query(
          `UPDATE webhook_subscriptions
         SET previous_secret = secret, previous_secret_expires_at = $3, secret = $2
         WHERE id = $1
         RETURNING ${SUBSCRIPTION_COLUMNS}`,
          [id, secret, previousExpiresAt],
        ),
      );
      return row === undefined ? null : toSubscription(row);
    });
  }

  listDeliveries(
    subscriptionId: number,
    { failedOnly, limit }: { failedOnly: boolean; limit: number },
  ): Promise<WebhookDelivery[]> {
    return withDatabaseErrors(() => readDeliveries(this.dataSource, { subscriptionId, failedOnly, limit }));
  }

  findDelivery(id: number): Promise<WebhookDelivery | null> {
    return withDatabaseErrors(async () => (await readDeliveries(this.dataSource, { id }))[0] ?? null);
  }

  enableSubscription(id: number, now: Date): Promise<EnabledSubscription | null> {
    return withDatabaseErrors(() =>
      this.dataSource.transaction(async (manager) => {
        const [row]: (SubscriptionRow & { lost: boolean })[] = await manager.query(
          `SELECT ${SUBSCRIPTION_COLUMNS}, failing_since,
             sent_seq < (SELECT changes_pruned_through FROM directory_meta) AS lost
           FROM webhook_subscriptions WHERE id = $1 FOR UPDATE`,
          [id],
        );
        if (row === undefined) return null;
        if (row.disabled_at === null) {
          return { subscription: toSubscription(row), requeued: 0, changesLost: false };
        }
        // Everything still pending waited while it was disabled: due now, oldest first (claimDue
        // takes them by seq, and its windows wait for them), each with a fresh three days.
        const [{ requeued }]: { requeued: number }[] = await manager.query(
          `WITH again AS (
             UPDATE webhook_deliveries
             SET next_attempt_at = $2, lease_until = NULL, failures = 0, requeued_at = $2
             WHERE subscription_id = $1 AND status = 'pending'
             RETURNING 1
           ) SELECT count(*)::int AS requeued FROM again`,
          [id, now],
        );
        const [enabled] = returned(
          await manager.query(
            `UPDATE webhook_subscriptions
             SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL, lease_until = NULL
             WHERE id = $1
             RETURNING ${SUBSCRIPTION_COLUMNS}`,
            [id],
          ),
        );
        await manager.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, '']);
        return { subscription: toSubscription(enabled), requeued, changesLost: row.lost };
      }),
    );
  }

  signingSecrets(id: number, now: Date): Promise<string[] | null> {
    return withDatabaseErrors(async () => {
      const [row] = await this.dataSource.query(
        'SELECT secret, previous_secret, previous_secret_expires_at FROM webhook_subscriptions WHERE id = $1',
        [id],
      );
      return row === undefined ? null : secretsOf(row, now);
    });
  }

  backlog(): Promise<WebhookBacklog[]> {
    return withDatabaseErrors(async () => {
      const rows: {
        id: number;
        disabled: boolean;
        changes: string;
        counted_up_to_limit: boolean;
        oldest_at: Date | null;
        oldest_seq: string | null;
      }[] = await this.dataSource.query(BACKLOG_SQL);
      return rows.map((row) => ({
        subscriptionId: Number(row.id),
        disabled: row.disabled,
        changes: Number(row.changes),
        orMore: row.counted_up_to_limit,
        oldestAt: row.oldest_at,
        oldestSeq: row.oldest_seq === null ? null : Number(row.oldest_seq),
      }));
    });
  }

  redeliver(id: number, now: Date): Promise<void> {
    return withDatabaseErrors(() =>
      this.dataSource.transaction(async (manager) => {
        // `delivered_at` stays: a change the receiver had is not waiting (webhook-waiting-sql.ts).
        await manager.query(
          `UPDATE webhook_deliveries
           SET status = 'pending', next_attempt_at = $2, lease_until = NULL, failures = 0,
               requeued_at = $2
           WHERE id = $1`,
          [id, now],
        );
        await manager.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, '']);
      }),
    );
  }

  // A pending delivery is still being tried (three days at most): it goes at a later run.
  pruneDeliveries(before: Date): Promise<number> {
    return withDatabaseErrors(async () => {
      const [{ removed }] = await this.dataSource.query(
        `WITH gone AS (
           DELETE FROM webhook_deliveries
            WHERE status <> 'pending' AND greatest(created_at, requeued_at) < $1
           RETURNING 1)
         SELECT count(*)::int AS removed FROM gone`,
        [before],
      );
      return removed;
    });
  }

  claimWindows(now: Date, leaseUntil: Date, limit: number, windowLimit: number): Promise<ChangeWindow[]> {
    return withDatabaseErrors(() =>
      claimChangeWindows(this.dataSource, () => this.wire(), { now, leaseUntil, limit, windowLimit }),
    );
  }

  recordWindow(window: ChangeWindow, record: WindowRecord): Promise<boolean> {
    return withDatabaseErrors(async () => {
      const { results } = record;
      const [{ recorded }]: { recorded: number }[] = await this.dataSource.query(RECORD_WINDOW_SQL, [
        window.subscriptionId,
        window.leaseUntil,
        window.throughSeq,
        record.succeeded,
        record.failingFrom,
        record.disable?.reason ?? null,
        record.disable?.at ?? null,
        results.map((r) => r.change.seq),
        results.map((r) => r.change.type),
        results.map((r) => r.change.messageId),
        results.map((r) => r.change.payload),
        results.map((r) => r.outcome.status),
        results.map((r) => (r.attempt !== null && countsAsFailure(r.outcome) ? 1 : 0)),
        results.map((r) => (r.outcome.status === 'pending' ? r.outcome.nextAttemptAt : null)),
        results.map((r) => r.attempt?.at ?? null),
        results.map((r) => r.attempt?.statusCode ?? null),
        results.map((r) => r.attempt?.durationMs ?? null),
        results.map((r) => r.attempt?.error ?? null),
      ]);
      return recorded > 0;
    });
  }

  /** The directory's id never changes once migrated: read once, then every payload is made here. */
  private wire(): Promise<WebhookWire> {
    this.wireMaker ??= this.wireOf(this.dataSource.manager).catch((error: unknown) => {
      this.wireMaker = null;
      throw error;
    });
    return this.wireMaker;
  }

  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
    return withDatabaseErrors(() => claimDueDeliveries(this.dataSource, now, leaseUntil, limit));
  }

  finish(claim: ClaimedDelivery, attempt: WebhookAttempt, outcome: DeliveryOutcome): Promise<boolean> {
    if (outcome.status !== 'failed') return this.outcomes.write({ claim, attempt, outcome });
    return withDatabaseErrors(() =>
      writeGivingUp(this.dataSource, claim, attempt, outcome.disableSubscription),
    );
  }

  release(claim: ClaimedDelivery): Promise<void> {
    return withDatabaseErrors(async () => {
      await this.dataSource.query(
        'UPDATE webhook_deliveries SET lease_until = NULL WHERE id = $1 AND lease_until = $2',
        [claim.id, claim.leaseUntil],
      );
    });
  }

  nextDueAt(now: Date): Promise<Date | null> {
    return withDatabaseErrors(() => nextDueAt(this.dataSource, now));
  }
}
