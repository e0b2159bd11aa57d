import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { ChangeType } from '../../application/ports/change-log';
import type {
  ClaimedDelivery,
  DeliveryOutcome,
  NewWebhookSubscription,
  WebhookAttempt,
  WebhookDelivery,
  WebhookStore,
  WebhookSubscription,
} from '../../application/ports/webhook-store';
import { withDatabaseErrors } from './database-errors';
import { DeliveryOutcomeWriter, NO_WAIT_FOR_DISK } from './delivery-outcome-writer';

/** Every instance LISTENs here (PostgreSQL): deliveries were queued or made due by hand. */
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

/**
 * The rows of an UPDATE or DELETE ... RETURNING: TypeORM answers those as `[rows, rowCount]`,
 * and SELECT and INSERT as the rows alone.
 */
// biome-ignore lint/suspicious/noExplicitAny: rows as the driver gives them
function returned(result: any): any[] {
  return Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
    ? result[0]
    : result;
}

const SUBSCRIPTION_COLUMNS =
  'id, url, events, created_at, previous_secret_expires_at, disabled_at, disabled_reason';

const DELIVERY_COLUMNS =
  'id, subscription_id, seq, type, message_id, status, attempts, next_attempt_at, created_at, delivered_at';

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

/** What a change becomes on the wire: SPEC §7's payload, with the cursor GET /changes would give. */
export type PayloadOf = (change: { seq: number; at: Date; type: string; personId: number }) => string;

/**
 * Whether delivery `d`'s subscription is enabled, as a filter on each row the due index yields
 * rather than a join: without statistics (a table that grew from nothing since the last ANALYZE)
 * the planner joined and then sorted every pending delivery, 70 ms with 45,000 of them, for each
 * claim; this way a claim reads the few rows at the head of the index whatever the statistics.
 */
const ENABLED_SUBSCRIPTION =
  '(SELECT s.disabled_at IS NULL FROM webhook_subscriptions s WHERE s.id = d.subscription_id)';

/**
 * Moves the dispatcher's cursor from where the read found it (`$1`) past the changes read (`$2`)
 * and queues their deliveries, in one statement, or does nothing when another instance holds the
 * cursor or has moved it meanwhile: the dispatcher is single-flight without waiting. A
 * subscription removed or disabled since the read gets nothing.
 */
const DISPATCH_SQL = `
  WITH cursor AS (
    SELECT id FROM webhook_dispatcher WHERE id = 1 AND last_seq = $1 FOR UPDATE SKIP LOCKED
  ),
  moved AS (
    UPDATE webhook_dispatcher w SET last_seq = $2 FROM cursor WHERE w.id = cursor.id RETURNING w.id
  ),
  queued AS (
    INSERT INTO webhook_deliveries (subscription_id, seq, message_id, type, payload, next_attempt_at, created_at)
    SELECT u.s, u.q, u.m, u.t, u.p, $8, $8
    FROM unnest($3::int[], $4::bigint[], $5::text[], $6::text[], $7::text[]) AS u(s, q, m, t, p)
    JOIN webhook_subscriptions s ON s.id = u.s AND s.disabled_at IS NULL
    WHERE EXISTS (SELECT 1 FROM moved)
    ON CONFLICT (subscription_id, seq) DO NOTHING
    RETURNING 1
  ),
  told AS (SELECT pg_notify($9, '') FROM (SELECT 1 FROM queued LIMIT 1) AS any_queued)
  SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM queued)::int AS queued,
    (SELECT count(*) FROM told)::int AS told`;

/**
 * The webhook queue on our own tables, by SQL only (like contacts and memberships: no
 * EntitySchema). Claims use `FOR UPDATE SKIP LOCKED` and a lease, so that instances never wait
 * for each other and a delivery whose instance died is taken over once its lease has run out.
 */
export class SqlWebhookStore implements WebhookStore {
  private readonly outcomes: DeliveryOutcomeWriter;
  private payloadMaker: Promise<PayloadOf> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly payloadOf: (manager: EntityManager) => Promise<PayloadOf>,
  ) {
    this.outcomes = new DeliveryOutcomeWriter(dataSource);
  }

  addSubscription({ url, events, secret }: NewWebhookSubscription): Promise<WebhookSubscription> {
    return withDatabaseErrors(async () => {
      // Changes committed before the subscription existed are not sent to it.
      const [row] = await this.dataSource.query(
        `INSERT INTO webhook_subscriptions (url, events, secret, after_seq)
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
    return withDatabaseErrors(() =>
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

  redeliver(id: number, now: Date): Promise<void> {
    return withDatabaseErrors(() =>
      this.dataSource.transaction(async (manager) => {
        await manager.query(
          `UPDATE webhook_deliveries
           SET status = 'pending', next_attempt_at = $2, lease_until = NULL, failures = 0,
               requeued_at = $2, delivered_at = NULL
           WHERE id = $1`,
          [id, now],
        );
        await manager.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, '']);
      }),
    );
  }

  dispatch(now: Date, limit: number): Promise<{ changes: number; deliveries: number } | null> {
    return withDatabaseErrors(async () => {
      // Read without a lock (the write below moves the cursor only from where this found it), so
      // that the dispatcher costs the database one statement when nothing waits and three when
      // something does, rather than a transaction of eight round trips.
      const read: {
        last_seq: string;
        seq: string | null;
        at: Date;
        type: string;
        person_id: number;
        admin: boolean;
      }[] = await this.dataSource.query(
        `SELECT w.last_seq, c.seq, c.at, c.type, c.person_id, coalesce(p.role = 'admin', false) AS admin
         FROM webhook_dispatcher w
         LEFT JOIN LATERAL (
           SELECT seq, at, type, person_id FROM changes WHERE seq > w.last_seq ORDER BY seq LIMIT $1
         ) c ON true
         LEFT JOIN people p ON p.id = c.person_id
         WHERE w.id = 1
         ORDER BY c.seq`,
        [limit],
      );
      const changes = read.filter((change) => change.seq !== null);
      if (changes.length === 0) return { changes: 0, deliveries: 0 };
      const subscriptions: { id: number; events: string[] | null; after_seq: string }[] =
        await this.dataSource.query(
          'SELECT id, events, after_seq FROM webhook_subscriptions WHERE disabled_at IS NULL',
        );
      const rows = {
        subscription: [] as number[],
        seq: [] as number[],
        id: [] as string[],
        type: [] as string[],
        payload: [] as string[],
      };
      if (subscriptions.length > 0) {
        const payloadOf = await this.payloads();
        for (const change of changes) {
          // Admins never appear (SPEC §1): their changes move the cursor and are sent to nobody.
          if (change.admin) continue;
          const seq = Number(change.seq);
          let payload: string | null = null;
          for (const subscription of subscriptions) {
            if (seq <= Number(subscription.after_seq)) continue;
            if (subscription.events !== null && !subscription.events.includes(change.type)) continue;
            payload ??= payloadOf({
              seq,
              at: change.at,
              type: change.type,
              personId: Number(change.person_id),
            });
            rows.subscription.push(Number(subscription.id));
            rows.seq.push(seq);
            rows.id.push(`msg_${randomUUID().replaceAll('-', '')}`);
            rows.type.push(change.type);
            rows.payload.push(payload);
          }
        }
      }
      const [written]: { moved: number; queued: number }[] = await this.dataSource.query(DISPATCH_SQL, [
        read[0].last_seq,
        changes[changes.length - 1].seq,
        rows.subscription,
        rows.seq,
        rows.id,
        rows.type,
        rows.payload,
        now,
        DELIVERIES_CHANNEL,
      ]);
      return written.moved === 0 ? null : { changes: changes.length, deliveries: written.queued };
    });
  }

  /** The directory's id never changes once migrated: read once, then every payload is made here. */
  private payloads(): Promise<PayloadOf> {
    this.payloadMaker ??= this.payloadOf(this.dataSource.manager).catch((error: unknown) => {
      this.payloadMaker = null;
      throw error;
    });
    return this.payloadMaker;
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
           ORDER BY d.next_attempt_at
           LIMIT $3
           FOR UPDATE OF d SKIP LOCKED
         )
         UPDATE webhook_deliveries d SET lease_until = $2
         FROM due, webhook_subscriptions s, no_wait_for_disk
         WHERE d.id = due.id AND s.id = d.subscription_id
         RETURNING d.id, d.subscription_id, d.message_id, d.payload, d.failures,
           coalesce(d.requeued_at, d.created_at) AS retrying_since, s.url, s.secret,
           s.previous_secret, s.previous_secret_expires_at, s.failing_since`,
          [now, leaseUntil, limit],
        ),
      );
      return rows.map(
        (row: {
          id: string;
          subscription_id: number;
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
          messageId: row.message_id,
          url: row.url,
          payload: row.payload,
          secrets:
            row.previous_secret !== null &&
            row.previous_secret_expires_at !== null &&
            row.previous_secret_expires_at > now
              ? [row.secret, row.previous_secret]
              : [row.secret],
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
      this.dataSource.transaction(async (manager) => {
        // The attempt happened whoever holds the lease now; it is recorded in any case.
        await manager.query(
          `INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, error)
           SELECT id, $2, $3, $4, $5 FROM webhook_deliveries WHERE id = $1`,
          [claim.id, attempt.at, attempt.statusCode, attempt.durationMs, attempt.error],
        );
        const updated = returned(
          await manager.query(
            `UPDATE webhook_deliveries
             SET lease_until = NULL, attempts = attempts + 1, status = 'failed', failures = failures + 1
             WHERE id = $1 AND lease_until = $2
             RETURNING id`,
            [claim.id, claim.leaseUntil],
          ),
        );
        if (updated.length === 0) return false;
        await manager.query(
          'UPDATE webhook_subscriptions SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL',
          [claim.subscriptionId, attempt.at],
        );
        if (outcome.disableSubscription !== null) {
          const disabled = returned(
            await manager.query(
              `UPDATE webhook_subscriptions SET disabled_at = $2, disabled_reason = $3
               WHERE id = $1 AND disabled_at IS NULL RETURNING id`,
              [claim.subscriptionId, attempt.at, outcome.disableSubscription],
            ),
          );
          // What was still waiting will not be sent: `webhooks deliveries --failed` shows it.
          if (disabled.length > 0) {
            await manager.query(
              `UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL
               WHERE subscription_id = $1 AND status = 'pending'`,
              [claim.subscriptionId],
            );
          }
        }
        return true;
      }),
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
