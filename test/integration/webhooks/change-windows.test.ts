import type { Container } from 'inversify';
import type { PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import type { UnitOfWork } from '../../../src/application/ports/unit-of-work';
import { AddWebhook } from '../../../src/application/webhooks/add-webhook';
import {
  DeliverWebhooks,
  LEASE_MS,
  type SendSlots,
} from '../../../src/application/webhooks/deliver-webhooks';
import { loadConfig } from '../../../src/config';
import { createContainer } from '../../../src/container';
import { type Database, migrate } from '../../../src/infrastructure/persistence/database';
import { CLAIM_WINDOWS_SQL } from '../../../src/infrastructure/webhooks/webhook-window-sql';
import { FakeClock } from '../../unit/support/fake-clock';
import { newPerson } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { type Answer, type Receiver, startReceiver } from './receiver';

const config = loadConfig({ BCRYPT_COST: '4', LOG_LEVEL: 'silent' });

/** One send at a time, so that a test knows the order of the receiver's answers. */
function oneSlot(): SendSlots {
  let free: Promise<void> = Promise.resolve();
  return async () => {
    const taken = free;
    let release: () => void = () => undefined;
    free = new Promise<void>((resolve) => {
      release = resolve;
    });
    await taken;
    return release;
  };
}

interface Row {
  seq: string;
  message_id: string;
  status: string;
  attempts: number;
  failures: number;
  next_attempt_at: Date;
  logged: number;
}

/**
 * The windows of the service's webhook engine, driven step by step (no runner): claimed, sent and
 * recorded, against a real receiver.
 */
describe.each(testDatabases)('windows of changes sent to subscriptions on $name', (target) => {
  let database: Database;
  let clock: FakeClock;
  let container: Container;
  let personId: number;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    database = await openTestDatabase(target);
    clock = new FakeClock(new Date().toISOString());
    container = createContainer({ ...config, databaseUrl: target.url }, database, { clock });
    await container.get<PersonRepository>(TYPES.PersonRepository).insertMany([newPerson()]);
    const [{ id }] = await database.dataSource.query('SELECT max(id) AS id FROM people');
    personId = Number(id);
  });
  afterEach(async () => {
    await database.dataSource.query('DELETE FROM webhook_subscriptions');
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(() => database.close());

  async function receiver(answer: (n: number) => Answer): Promise<Receiver> {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  }

  async function changes(count: number): Promise<void> {
    const entries = Array.from({ length: count }, () => ({
      type: 'person.updated' as const,
      personId,
      fields: ['first_name' as const],
      byKeyId: null,
    }));
    await container.get<UnitOfWork>(TYPES.UnitOfWork).run((tx) => tx.changes.record(entries));
  }

  async function rows(): Promise<Row[]> {
    return database.dataSource.query(
      `SELECT d.seq, d.message_id, d.status, d.attempts, d.failures, d.next_attempt_at,
              (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS logged
       FROM webhook_deliveries d ORDER BY d.seq`,
    );
  }

  async function subscription(): Promise<{
    sent_seq: string;
    failing_since: Date | null;
    disabled_reason: string | null;
  }> {
    const [row] = await database.dataSource.query(
      'SELECT sent_seq, failing_since, disabled_reason, lease_until FROM webhook_subscriptions',
    );
    expect(row.lease_until).toBeNull();
    return row;
  }

  it('records a window partly failed: a row per change, the failures due again, the cursor past it', async () => {
    const hooks = await receiver((n) => ({ status: n % 2 === 0 ? 503 : 204 }));
    await container.get(AddWebhook).execute({ url: hooks.url, events: null });
    await changes(6);
    const engine = container.get(DeliverWebhooks);
    const [window] = await engine.claimWindows(10);
    expect(window.changes).toHaveLength(6);
    expect(await engine.sendWindow(window, oneSlot())).toBe(true);

    const recorded = await rows();
    expect(recorded.map((r) => [r.status, r.attempts, r.failures, r.logged])).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => (n % 2 === 0 ? ['pending', 1, 1, 1] : ['delivered', 1, 0, 1])),
    );
    for (const row of recorded.filter((r) => r.status === 'pending')) {
      // About 5 s later, with ±20 % jitter.
      expect(row.next_attempt_at.getTime() - clock.now().getTime()).toBeGreaterThanOrEqual(3900);
    }
    const after = await subscription();
    expect(after.sent_seq).toBe(String(window.throughSeq));
    // The last attempt failed, after a success: failing since that failure.
    expect(after.failing_since).toEqual(clock.now());
    expect(await engine.claimWindows(10)).toEqual([]);

    // The retry path takes the failures from there, with the webhook-id of their first attempt.
    clock.advance(6500);
    const retries = await engine.claim(10);
    expect(retries.map((c) => c.messageId).sort()).toEqual(
      recorded
        .filter((r) => r.status === 'pending')
        .map((r) => r.message_id)
        .sort(),
    );
    hooks.answer = () => ({ status: 204 });
    for (const claim of retries) await engine.deliver(claim);
    expect((await rows()).every((r) => r.status === 'delivered')).toBe(true);
    expect((await subscription()).failing_since).toBeNull();
    const ids = hooks.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(6);
  });

  it('sends nothing more of a window after a 410, disables the subscription and keeps the rest waiting', async () => {
    const hooks = await receiver((n) => ({ status: n === 2 ? 410 : 204 }));
    await container.get(AddWebhook).execute({ url: hooks.url, events: null });
    await changes(5);
    const engine = container.get(DeliverWebhooks);
    const [window] = await engine.claimWindows(10);
    expect(await engine.sendWindow(window, oneSlot())).toBe(true);

    expect(hooks.received).toHaveLength(2);
    expect((await rows()).map((r) => [r.status, r.logged])).toEqual([
      ['delivered', 1],
      ['pending', 1],
      ['pending', 0],
      ['pending', 0],
      ['pending', 0],
    ]);
    expect((await subscription()).disabled_reason).toBe('the receiver answered 410 Gone');
    await changes(1);
    expect(await engine.claimWindows(10)).toEqual([]);
    // Nothing of it is sent while it is disabled.
    expect(await engine.claim(10)).toEqual([]);
  });

  it('sends a window again, with the same webhook-ids, once the lease of an instance that never recorded it has run out', async () => {
    const hooks = await receiver(() => ({ status: 204 }));
    await container.get(AddWebhook).execute({ url: hooks.url, events: null });
    await changes(3);
    // The instance that dies: it claimed the window (and may have sent it), and never recorded it.
    const dead = createContainer({ ...config, databaseUrl: target.url }, database, { clock });
    const [lost] = await dead.get(DeliverWebhooks).claimWindows(10);
    const engine = container.get(DeliverWebhooks);
    expect(await engine.claimWindows(10)).toEqual([]);

    clock.advance(LEASE_MS + 1);
    const [window] = await engine.claimWindows(10);
    expect(window.changes.map((c) => c.messageId)).toEqual(lost.changes.map((c) => c.messageId));
    expect(await engine.sendWindow(window, oneSlot())).toBe(true);
    expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual(lost.changes.map((c) => c.messageId));
    // The dead instance's lease is gone: its window can no longer be recorded.
    expect(await dead.get(DeliverWebhooks).sendWindow(lost, oneSlot())).toBe(false);
    expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual([
      ...lost.changes.map((c) => c.messageId),
      ...lost.changes.map((c) => c.messageId),
    ]);
    expect((await rows()).map((r) => [r.status, r.logged])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
    ]);
  });

  it('reads nothing of the change log while there is no subscription', async () => {
    await changes(2);
    const plan: { 'QUERY PLAN': string }[] = await database.dataSource.transaction(async (manager) => {
      const explained = await manager.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${CLAIM_WINDOWS_SQL}`, [
        clock.now(),
        new Date(clock.now().getTime() + LEASE_MS),
        16,
      ]);
      return explained;
    });
    const lines = plan.map((row) => row['QUERY PLAN']);
    const onChanges = lines.filter((line) => / on changes\b/.test(line));
    expect(onChanges.length).toBeGreaterThan(0);
    expect(onChanges.every((line) => line.includes('never executed'))).toBe(true);
  });
});

describe.each(testDatabases)('subscription cursors migrated on $name', (target) => {
  it('start each subscription where the dispatcher was, and keep the deliveries it had queued', async () => {
    const database = await openTestDatabase(target);
    const { dataSource } = database;
    try {
      // Back to just before the cursors' migration, whatever migrations came after it.
      for (let undone = ''; undone !== 'WebhookSubscriptionCursors1767744000000'; ) {
        [{ name: undone }] = await dataSource.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1');
        await dataSource.undoLastMigration();
      }
      const [{ id: early }] = await dataSource.query(
        `INSERT INTO webhook_subscriptions (url, events, secret, after_seq)
         VALUES ('http://127.0.0.1:9/a', NULL, 'whsec_dGVzdA==', 5) RETURNING id`,
      );
      const [{ id: late }] = await dataSource.query(
        `INSERT INTO webhook_subscriptions (url, events, secret, after_seq)
         VALUES ('http://127.0.0.1:9/b', NULL, 'whsec_dGVzdA==', 40) RETURNING id`,
      );
      await dataSource.query('UPDATE webhook_dispatcher SET last_seq = 30');
      await dataSource.query(
        `INSERT INTO webhook_deliveries (subscription_id, seq, message_id, type, payload, next_attempt_at, created_at)
         VALUES ($1, 29, 'msg_queued', 'person.updated', '{}', now(), now())`,
        [early],
      );

      expect((await migrate(database))[0]).toBe('WebhookSubscriptionCursors1767744000000');
      expect(
        await dataSource.query('SELECT id, sent_seq, lease_until FROM webhook_subscriptions ORDER BY id'),
      ).toEqual([
        { id: early, sent_seq: '30', lease_until: null },
        { id: late, sent_seq: '40', lease_until: null },
      ]);
      expect(await dataSource.query('SELECT message_id, status FROM webhook_deliveries')).toEqual([
        { message_id: 'msg_queued', status: 'pending' },
      ]);
      expect(await dataSource.query("SELECT to_regclass('webhook_dispatcher') AS t")).toEqual([{ t: null }]);
    } finally {
      await database.close();
    }
  });
});
