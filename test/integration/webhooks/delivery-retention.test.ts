import { PruneChanges } from '../../../src/application/changes/prune-changes';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

const DAY_MS = 24 * 60 * 60 * 1000;

/** SPEC §7: every attempt is recorded and kept as long as changes are (CHANGES_RETENTION_DAYS). */
describe.each(testDatabases)('webhook delivery retention on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
  });
  afterAll(() => t.close());

  const query = (sql: string, params: unknown[] = []) => t.database.dataSource.query(sql, params);

  it('the retention job removes deliveries over and older than the changes kept, with their attempts', async () => {
    const [{ id: subscription }] = await query(
      "INSERT INTO webhook_subscriptions (url, secret, sent_seq) VALUES ('http://127.0.0.1:9/hook', 'whsec_x', 0) RETURNING id",
    );
    const now = Date.now();
    const ago = (days: number) => new Date(now - days * DAY_MS);
    const delivery = async (seq: number, status: string, created: Date, requeued: Date | null = null) => {
      const [{ id }] = await query(
        `INSERT INTO webhook_deliveries (subscription_id, seq, message_id, type, payload, status, next_attempt_at, created_at, requeued_at)
         VALUES ($1, $2, $3, 'person.erased', '{}', $4, $5, $5, $6) RETURNING id`,
        [subscription, seq, `msg_${subscription}_${seq}`, status, created, requeued],
      );
      await query(
        'INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms) VALUES ($1, $2, 500, 3)',
        [id, created],
      );
      return Number(id);
    };
    const oldDelivered = await delivery(1, 'delivered', ago(40));
    const oldFailed = await delivery(2, 'failed', ago(31));
    const oldPending = await delivery(3, 'pending', ago(40));
    const young = await delivery(4, 'delivered', ago(29));
    const redelivered = await delivery(5, 'delivered', ago(40), ago(2));

    await t.container.get(PruneChanges).execute({ retentionDays: 30 });

    const left = await query('SELECT id FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id', [
      subscription,
    ]);
    expect(left.map((row: { id: string }) => Number(row.id))).toEqual([oldPending, young, redelivered]);
    const attempts = await query(
      'SELECT delivery_id FROM webhook_attempts WHERE delivery_id = ANY($1::bigint[])',
      [[oldDelivered, oldFailed]],
    );
    expect(attempts).toEqual([]);
  });
});
