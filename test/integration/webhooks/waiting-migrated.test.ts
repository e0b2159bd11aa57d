import { migrate } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases, undoTo } from '../../support/databases';

/**
 * Issue 46: the earlier code failed what waited for a subscription when it disabled it, and cleared
 * `delivered_at` on a resend by hand. The migration WebhooksKeepWaiting gives those rows back.
 */
describe.each(testDatabases)('what earlier disablings failed, once migrated, on $name', (target) => {
  it('waits again for `webhooks enable`; a resend by hand of a delivered change, or one that gave up alone, does not', async () => {
    const database = await openTestDatabase(target);
    const query = (sql: string, params: unknown[] = []) => database.dataSource.query(sql, params);
    try {
      const undone = await undoTo(database, 'WebhooksKeepWaiting1768262400000');
      const subscription = async (disabled: boolean): Promise<number> => {
        const [{ id }] = await query(
          `INSERT INTO webhook_subscriptions (url, secret, sent_seq, disabled_at, disabled_reason)
           VALUES ('http://127.0.0.1:9/hook', 'whsec_x', 0, $1, $2) RETURNING id`,
          disabled ? [new Date(), 'the receiver answered 410 Gone'] : [null, null],
        );
        return Number(id);
      };
      const delivery = async (subscriptionId: number, seq: number, statuses: number[]): Promise<number> => {
        const [{ id }] = await query(
          `INSERT INTO webhook_deliveries (subscription_id, seq, message_id, type, payload, status, next_attempt_at, created_at)
           VALUES ($1, $2, $3, 'person.updated', '{}', 'failed', now(), now()) RETURNING id`,
          [subscriptionId, seq, `msg_${subscriptionId}_${seq}`],
        );
        for (const [i, status] of statuses.entries()) {
          await query(
            `INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms)
             VALUES ($1, '2026-11-30T10:00:00Z'::timestamptz + $2 * interval '1 hour', $3, 3)`,
            [id, i, status],
          );
        }
        return Number(id);
      };
      const disabled = await subscription(true);
      const refused = await delivery(disabled, 1, [410]);
      const waitingForRetry = await delivery(disabled, 2, [503]);
      const resent = await delivery(disabled, 3, [200, 410]);
      const enabled = await subscription(false);
      const gaveUpAlone = await delivery(enabled, 4, [503, 503]);

      expect(await migrate(database)).toEqual(undone);

      const rows: { id: string; status: string; delivered_at: Date | null }[] = await query(
        'SELECT id, status, delivered_at FROM webhook_deliveries ORDER BY id',
      );
      expect(rows.map((row) => [Number(row.id), row.status, row.delivered_at])).toEqual([
        [refused, 'pending', null],
        [waitingForRetry, 'pending', null],
        [resent, 'failed', new Date('2026-11-30T10:00:00Z')],
        [gaveUpAlone, 'failed', null],
      ]);
    } finally {
      await database.close();
    }
  });
});
