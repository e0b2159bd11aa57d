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
  WindowChange,
  WindowRecord,
} from '../../application/ports/webhook-store';
import { retryOnDeadlock, withDatabaseErrors } from '../persistence/database-errors';
import { DeliveryOutcomeWriter, NO_WAIT_FOR_DISK } from './delivery-outcome-writer';
import { countsAsFailure } from '../../application/webhooks/failing-mark';
import type { WebhookWire } from './webhook-payload';
import { CLAIM_WINDOWS_SQL, READ_WINDOWS_SQL, RECORD_WINDOW_SQL } from './webhook-window-sql';
import { BACKLOG_SQL } from './webhook-waiting-sql';
import { writeGivingUp } from './delivery-give-up';
import { returned } from './returned-rows';

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

interface DeliveryRow {
  id: string;
  subscription_id: number;
  seq: string;
  type: string;
  message_id: string;
  status: WebhookDelivery['status'];
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  delivered_at: Date | null;
}

interface AttemptRow {
  delivery_id: string;
  at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

const SUBSCRIPTION_COLUMNS =
  'id, url, events, created_at, previous_secret_expires_at, disabled_at, disabled_reason';

const DELIVERY_COLUMNS =
  'id, subscription_id, seq, type, message_id, status, attempts, next_attempt_at, created_at, delivered_at';

/** Every secret that signs at `now`: the current one, then the previous during a rotation. */
function secretsOf(
  row: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | null },
  now: Date,
): string[] {
  return row.previous_secret !== null &&
    row.previous_secret_expires_at !== null &&
    row.previous_secret_expires_at > now
    ? [row.secret, row.previous_secret]
    : [row.secret];
}

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

function toDelivery(row: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: Number(row.id),
    subscriptionId: Number(row.subscription_id),
    seq: Number(row.seq),
    type: row.type,
    messageId: row.message_id,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    attemptLog: attempts.map((a) => ({
      at: a.at,
      statusCode: a.status_code,
      durationMs: a.duration_ms,
      error: a.error,
    })),
  };
}

/**
 * Whether delivery `d`'s subscription is enabled, as a filter on each row the due index yields
 * rather than a join: without statistics (a table that grew from nothing since the last ANALYZE)
 * the planner joined and then sorted every pending delivery, 70 ms with 45,000 of them, for each
 * claim; this way a claim reads the few rows at the head of the index whatever the statistics.
 */
const ENABLED_SUBSCRIPTION =
  '(SELECT s.disabled_at IS NULL FROM webhook_subscriptions s WHERE s.id = d.subscription_id)';

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
    return withDatabaseErrors(async () => {
      const failed = failedOnly ? "AND (status = 'failed' OR (status = 'pending' AND failures > 0))" : '';
      const rows: DeliveryRow[] = await this.dataSource.query(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
         WHERE subscription_id = $1 ${failed}
         ORDER BY id DESC LIMIT $2`,
        [subscriptionId, limit],
      );
      return this.withAttempts(rows);
    });
  }

  findDelivery(id: number): Promise<WebhookDelivery | null> {
    return withDatabaseErrors(async () => {
      const rows: DeliveryRow[] = await this.dataSource.query(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`,
        [id],
      );
      const [delivery] = await this.withAttempts(rows);
      return delivery ?? null;
    });
  }

  private async withAttempts(rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
    if (rows.length === 0) return [];
    const attempts: AttemptRow[] = await this.dataSource.query(
      `SELECT delivery_id, at, status_code, duration_ms, error FROM webhook_attempts
       WHERE delivery_id = ANY($1::bigint[]) ORDER BY at, id`,
      [rows.map((row) => row.id)],
    );
    return rows.map((row) =>
      toDelivery(
        row,
        attempts.filter((a) => String(a.delivery_id) === String(row.id)),
      ),
    );
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
    return withDatabaseErrors(async () => {
      const claimed: {
        id: number;
        url: string;
        events: string[] | null;
        secret: string;
        previous_secret: string | null;
        previous_secret_expires_at: Date | null;
        failing_since: Date | null;
        sent_seq: string;
      }[] = returned(await this.dataSource.query(CLAIM_WINDOWS_SQL, [now, leaseUntil, limit]));
      if (claimed.length === 0) return [];
      // Read once per distinct cursor: subscriptions that keep up share one.
      const cursors = [...new Set(claimed.map((row) => String(row.sent_seq)))];
      const read: {
        after: string;
        seq: string;
        at: Date;
        type: string;
        person_id: number;
        admin: boolean;
      }[] = await this.dataSource.query(READ_WINDOWS_SQL, [cursors, windowLimit]);
      const wire = await this.wire();
      const payloads = new Map<number, string>();
      return claimed.map((row): ChangeWindow => {
        const subscriptionId = Number(row.id);
        const after = String(row.sent_seq);
        const mine = read.filter((change) => String(change.after) === after);
        const changes: WindowChange[] = [];
        for (const change of mine) {
          // Admins never appear (SPEC §1): their changes move the cursor and are sent to nobody.
          if (change.admin) continue;
          if (row.events !== null && !row.events.includes(change.type)) continue;
          const seq = Number(change.seq);
          let payload = payloads.get(seq);
          if (payload === undefined) {
            payload = wire.payload({
              seq,
              at: change.at,
              type: change.type,
              personId: Number(change.person_id),
            });
            payloads.set(seq, payload);
          }
          changes.push({ seq, type: change.type, messageId: wire.messageId(subscriptionId, seq), payload });
        }
        return {
          subscriptionId,
          url: row.url,
          secrets: secretsOf(row, now),
          failingSince: row.failing_since,
          leaseUntil,
          changes,
          throughSeq: mine.length === 0 ? Number(after) : Number(mine[mine.length - 1].seq),
        };
      });
    });
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
    return withDatabaseErrors(async () => {
      const rows = returned(
        await this.dataSource.query(
          `WITH ${NO_WAIT_FOR_DISK},
         due AS (
           SELECT d.id FROM webhook_deliveries d
           WHERE d.status = 'pending' AND d.next_attempt_at <= $1
             AND (d.lease_until IS NULL OR d.lease_until <= $1)
             AND ${ENABLED_SUBSCRIPTION}
           ORDER BY d.next_attempt_at, d.seq
           LIMIT $3
           FOR UPDATE OF d SKIP LOCKED
         )
         UPDATE webhook_deliveries d SET lease_until = $2
         FROM due, webhook_subscriptions s, no_wait_for_disk
         WHERE d.id = due.id AND s.id = d.subscription_id
         RETURNING d.id, d.subscription_id, d.seq, d.attempts, d.message_id, d.payload, d.failures,
           coalesce(d.requeued_at, d.created_at) AS retrying_since, s.url, s.secret,
           s.previous_secret, s.previous_secret_expires_at, s.failing_since`,
          [now, leaseUntil, limit],
        ),
      );
      return rows.map(
        (row: {
          id: string;
          subscription_id: number;
          seq: string;
          attempts: number;
          message_id: string;
          payload: string;
          failures: number;
          retrying_since: Date;
          url: string;
          secret: string;
          previous_secret: string | null;
          previous_secret_expires_at: Date | null;
          failing_since: Date | null;
        }): ClaimedDelivery => ({
          id: Number(row.id),
          subscriptionId: Number(row.subscription_id),
          seq: Number(row.seq),
          attempts: row.attempts,
          messageId: row.message_id,
          url: row.url,
          payload: row.payload,
          secrets: secretsOf(row, now),
          failures: row.failures,
          retryingSince: row.retrying_since,
          failingSince: row.failing_since,
          leaseUntil,
        }),
      );
    });
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
    return withDatabaseErrors(async () => {
      // Along the due index from its start, rather than through every pending delivery: with a
      // backlog of thousands that is the difference between a few rows and a scan of them all.
      const [row] = await this.dataSource.query(
        `SELECT d.next_attempt_at AS at
         FROM webhook_deliveries d
         WHERE d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= $1)
           AND ${ENABLED_SUBSCRIPTION}
         ORDER BY d.next_attempt_at
         LIMIT 1`,
        [now],
      );
      return row?.at ?? null;
    });
  }
}
