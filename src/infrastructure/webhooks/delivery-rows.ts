import type { DataSource } from 'typeorm';
import type { WebhookDelivery } from '../../application/ports/webhook-store';

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

const DELIVERY_COLUMNS =
  'id, subscription_id, seq, type, message_id, status, attempts, next_attempt_at, created_at, delivered_at';

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
 * Deliveries as the operator reads them (`webhooks deliveries`), each with its attempts, oldest
 * first: one by id, or a subscription's, newest first, at most `limit`, `failedOnly` keeping the
 * failed ones and the pending ones that failed.
 */
export async function readDeliveries(
  dataSource: DataSource,
  which: { id: number } | { subscriptionId: number; failedOnly: boolean; limit: number },
): Promise<WebhookDelivery[]> {
  const rows: DeliveryRow[] =
    'id' in which
      ? await dataSource.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`, [which.id])
      : await dataSource.query(
          `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
           WHERE subscription_id = $1
             ${which.failedOnly ? "AND (status = 'failed' OR (status = 'pending' AND failures > 0))" : ''}
           ORDER BY id DESC LIMIT $2`,
          [which.subscriptionId, which.limit],
        );
  if (rows.length === 0) return [];
  const attempts: AttemptRow[] = await dataSource.query(
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
