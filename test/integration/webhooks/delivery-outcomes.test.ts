import type { ClaimedDelivery, WebhookAttempt } from '../../../src/application/ports/webhook-store';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { SqlWebhookStore } from '../../../src/infrastructure/webhooks/sql-webhook-store';
import { webhookPayloads } from '../../../src/infrastructure/webhooks/webhook-payload';
import { openTestDatabase, testDatabases } from '../../support/databases';

const SECOND = 1000;

describe.each(testDatabases)('outcomes of deliveries written together on $name', (target) => {
  let database: Database;
  let store: SqlWebhookStore;
  const start = new Date('2026-03-01T12:00:00Z');
  const at = (seconds: number) => new Date(start.getTime() + seconds * SECOND);

  beforeAll(async () => {
    database = await openTestDatabase(target);
    store = new SqlWebhookStore(database.dataSource, webhookPayloads);
  });
  afterAll(() => database.close());
  afterEach(() => database.dataSource.query('DELETE FROM webhook_subscriptions'));

  /** A subscription with `count` deliveries due at `start`, all claimed by one instance. */
  async function claimed(count: number): Promise<{ subscriptionId: number; claims: ClaimedDelivery[] }> {
    const { id } = await store.addSubscription({
      url: 'http://127.0.0.1:9/hooks',
      events: null,
      secret: 'whsec_dGVzdA==',
    });
    await database.dataSource.query(
      `INSERT INTO webhook_deliveries (subscription_id, seq, message_id, type, payload, next_attempt_at, created_at)
       SELECT $1::int, n, 'msg_' || $1::int || '_' || n, 'person.updated', '{}', $2, $2 FROM generate_series(1, $3) AS n`,
      [id, start, count],
    );
    const claims = await store.claimDue(start, at(60), count);
    expect(claims).toHaveLength(count);
    return { subscriptionId: id, claims: claims.sort((a, b) => a.id - b.id) };
  }

  const ok = (seconds: number): WebhookAttempt => ({
    at: at(seconds),
    statusCode: 204,
    durationMs: 3,
    error: null,
  });
  const refused = (seconds: number): WebhookAttempt => ({
    at: at(seconds),
    statusCode: 503,
    durationMs: 4,
    error: 'HTTP 503',
  });
  const retry = { status: 'pending' as const, nextAttemptAt: at(3600), countsAsFailure: true };

  async function failingSince(subscriptionId: number): Promise<Date | null> {
    const [row] = await database.dataSource.query(
      'SELECT failing_since FROM webhook_subscriptions WHERE id = $1',
      [subscriptionId],
    );
    return row.failing_since;
  }

  it('records every attempt and outcome when they end together, however they are grouped', async () => {
    const { claims } = await claimed(40);
    const written = await Promise.all(
      claims.map((claim, i) =>
        i % 4 === 0
          ? store.finish(claim, refused(i), retry)
          : store.finish(claim, ok(i), { status: 'delivered' }),
      ),
    );
    expect(written.every(Boolean)).toBe(true);
    const rows: {
      status: string;
      attempts: number;
      failures: number;
      logged: number;
      lease_until: Date | null;
    }[] = await database.dataSource.query(
      `SELECT d.status, d.attempts, d.failures, d.lease_until,
                (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS logged
         FROM webhook_deliveries d ORDER BY d.id`,
    );
    expect(rows.map((r) => r.status)).toEqual(claims.map((_, i) => (i % 4 === 0 ? 'pending' : 'delivered')));
    expect(rows.every((r) => r.attempts === 1 && r.logged === 1 && r.lease_until === null)).toBe(true);
    expect(rows.map((r) => r.failures)).toEqual(claims.map((_, i) => (i % 4 === 0 ? 1 : 0)));
  });

  it('marks the subscription failing from the first failure after its last success, by when attempts began', async () => {
    const { subscriptionId, claims } = await claimed(4);
    // Ending in another order than they began: what counts is the order of the attempts.
    await Promise.all([
      store.finish(claims[3], refused(30), retry),
      store.finish(claims[1], ok(10), { status: 'delivered' }),
      store.finish(claims[2], refused(20), retry),
      store.finish(claims[0], refused(0), retry),
    ]);
    expect(await failingSince(subscriptionId)).toEqual(at(20));
  });

  it('clears the failing mark when the last attempt succeeded, and keeps an older mark through new failures', async () => {
    const first = await claimed(2);
    await database.dataSource.query('UPDATE webhook_subscriptions SET failing_since = $2 WHERE id = $1', [
      first.subscriptionId,
      at(-600),
    ]);
    await Promise.all([
      store.finish(first.claims[0], refused(0), retry),
      store.finish(first.claims[1], ok(5), { status: 'delivered' }),
    ]);
    expect(await failingSince(first.subscriptionId)).toBeNull();

    const second = await claimed(2);
    await database.dataSource.query('UPDATE webhook_subscriptions SET failing_since = $2 WHERE id = $1', [
      second.subscriptionId,
      at(-600),
    ]);
    await Promise.all(second.claims.map((claim, i) => store.finish(claim, refused(i), retry)));
    expect(await failingSince(second.subscriptionId)).toEqual(at(-600));
  });

  it('records the attempt but not the outcome of a claim whose lease another instance has taken over', async () => {
    const { claims } = await claimed(3);
    await database.dataSource.query('UPDATE webhook_deliveries SET lease_until = $2 WHERE id = $1', [
      claims[1].id,
      at(120),
    ]);
    const written = await Promise.all(
      claims.map((claim, i) => store.finish(claim, ok(i), { status: 'delivered' })),
    );
    expect(written).toEqual([true, false, true]);
    const [taken] = await database.dataSource.query(
      `SELECT d.status, d.attempts, (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS logged
       FROM webhook_deliveries d WHERE d.id = $1`,
      [claims[1].id],
    );
    expect(taken).toEqual({ status: 'pending', attempts: 0, logged: 1 });
  });

  // Only PostgreSQL has concurrent sessions to deadlock.
  (target.name === 'postgres' ? it : it.skip)(
    'removes a subscription even when a window disabling it holds its row and waits for its deliveries',
    async () => {
      const { subscriptionId } = await claimed(3);
      // The window record's order: the subscription's row first, then its pending deliveries.
      const window = database.dataSource.createQueryRunner();
      await window.startTransaction();
      try {
        await window.query('UPDATE webhook_subscriptions SET disabled_at = $2 WHERE id = $1', [
          subscriptionId,
          at(1),
        ]);
        const removed = store.removeSubscription(subscriptionId);
        // The removal holds the deliveries and waits for the subscription's row.
        for (let waited = 0; ; waited += 20) {
          const [{ waiting }] = await database.dataSource.query(
            "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%DELETE FROM webhook_subscriptions%'",
          );
          if (waiting > 0) break;
          if (waited > 10 * SECOND) throw new Error('the removal never waited for the row');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // PostgreSQL aborts the removal, which waited first, to break the cycle; it runs again.
        await window.query(
          "UPDATE webhook_deliveries SET status = 'failed' WHERE subscription_id = $1 AND status = 'pending'",
          [subscriptionId],
        );
        await window.commitTransaction();
        expect(await removed).toBe(true);
        expect(await store.findSubscription(subscriptionId)).toBeNull();
      } finally {
        if (window.isTransactionActive) await window.rollbackTransaction();
        await window.release();
      }
    },
  );
});
