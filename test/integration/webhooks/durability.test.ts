import { rmSync } from 'node:fs';
import type { Container } from 'inversify';
import type { PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import type { UnitOfWork } from '../../../src/application/ports/unit-of-work';
import { AddWebhook } from '../../../src/application/webhooks/add-webhook';
import { DeliverWebhooks, LEASE_MS } from '../../../src/application/webhooks/deliver-webhooks';
import { loadConfig } from '../../../src/config';
import { APP, closeConnections, createContainer, startConnections } from '../../../src/container';
import { type Database, openDatabase } from '../../../src/infrastructure/persistence/database';
import type { WebhookRunner } from '../../../src/infrastructure/webhooks/webhook-runner';
import { FakeClock } from '../../unit/support/fake-clock';
import { newPerson } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { openSameSchema, waitFor } from '../multi-instance/instances';
import { startReceiver } from './receiver';
import { migratedDataDir } from '../../support/run-artifacts';

const config = loadConfig({ BCRYPT_COST: '4', LOG_LEVEL: 'silent' });

function instance(database: Database, url: string | null, clock: FakeClock): Container {
  return createContainer({ ...config, databaseUrl: url }, database, { clock, webhookPollMs: 25 });
}

async function addPerson(container: Container, database: Database): Promise<number> {
  await container.get<PersonRepository>(TYPES.PersonRepository).insertMany([newPerson()]);
  const [{ id }] = await database.dataSource.query('SELECT max(id) AS id FROM people');
  return Number(id);
}

/** A committed person.updated, as a PATCH records it. */
async function recordChange(container: Container, personId: number): Promise<void> {
  await container
    .get<UnitOfWork>(TYPES.UnitOfWork)
    .run((tx) =>
      tx.changes.record([{ type: 'person.updated', personId, fields: ['first_name'], byKeyId: null }]),
    );
}

async function deliveryRows(database: Database) {
  return database.dataSource.query(
    `SELECT d.id, d.message_id, d.status, d.next_attempt_at,
            (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts,
            (SELECT array_agg(coalesce(a.error, '') ORDER BY a.id) FROM webhook_attempts a WHERE a.delivery_id = d.id) AS errors
     FROM webhook_deliveries d ORDER BY d.id`,
  ) as Promise<
    {
      id: string;
      message_id: string;
      status: string;
      next_attempt_at: Date;
      attempts: number;
      errors: string[];
    }[]
  >;
}

describe.each(testDatabases)('webhook deliveries are durable on $name', (target) => {
  let dataDir: string | null = null;
  const opened: Database[] = [];

  afterEach(async () => {
    for (const database of opened.splice(0).reverse()) await database.close().catch(() => undefined);
    if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
    dataDir = null;
  });

  /** The database, and a way to open it again as a restarted service would. */
  async function openTwice(): Promise<{ first: Database; reopen: () => Promise<Database> }> {
    if (target.url === null) {
      dataDir = await migratedDataDir('hooks-');
      const dir = dataDir;
      const first = await openDatabase({ databaseUrl: null, dataDir: dir });
      return {
        first,
        reopen: async () => {
          const again = await openDatabase({ databaseUrl: null, dataDir: dir });
          opened.push(again);
          return again;
        },
      };
    }
    const url = target.url;
    const first = await openTestDatabase(target);
    opened.push(first);
    return {
      first,
      reopen: async () => {
        const again = await openSameSchema(first, url);
        opened.push(again);
        return again;
      },
    };
  }

  /**
   * The database of a test that never restarts: on PGlite in memory, from the run's snapshot,
   * rather than a DATA_DIR copied and opened on disk (about half a second more, per open and close).
   */
  async function openOnce(): Promise<Database> {
    const database = await openTestDatabase(target);
    opened.push(database);
    return database;
  }

  it('loses nothing when the service restarts between a failed attempt and its retry', async () => {
    const clock = new FakeClock(new Date().toISOString());
    const receiver = await startReceiver((n) => ({ status: n === 1 ? 503 : 200 }));
    try {
      const { first, reopen } = await openTwice();
      const before = instance(first, target.url, clock);
      await startConnections(before);
      await before.get(AddWebhook).execute({ url: receiver.url, events: null });
      await recordChange(before, await addPerson(before, first));
      await receiver.waitFor(1);
      await waitFor(async () => (await deliveryRows(first))[0]?.attempts === 1, 5000);
      await closeConnections(before);
      // PGlite: the directory is closed and opened again, as by a new process.
      if (target.url === null) await first.close();

      const database = await reopen();
      const after = instance(database, target.url, clock);
      await startConnections(after);
      try {
        clock.advance(6000);
        after.get<WebhookRunner>(APP.WebhookRunner).wake();
        const [one, two] = await receiver.waitFor(2);
        expect(two.headers['webhook-id']).toBe(one.headers['webhook-id']);
        await waitFor(async () => (await deliveryRows(database))[0]?.status === 'delivered', 5000);
        expect(await deliveryRows(database)).toEqual([
          expect.objectContaining({ attempts: 2, errors: ['HTTP 503', ''] }),
        ]);
      } finally {
        await closeConnections(after);
      }
    } finally {
      await receiver.close();
    }
  });

  it('sends again, once its lease has run out, a delivery whose instance died mid-send', async () => {
    const clock = new FakeClock(new Date().toISOString());
    const receiver = await startReceiver();
    try {
      const database = await openOnce();
      const dead = instance(database, target.url, clock);
      await dead.get(AddWebhook).execute({ url: receiver.url, events: null });
      await recordChange(dead, await addPerson(dead, database));
      // The instance that dies: it claimed the subscription's window, and never sent nor recorded.
      const engine = dead.get(DeliverWebhooks);
      expect(await engine.claimWindows(10)).toHaveLength(1);

      const live = instance(database, target.url, clock);
      await startConnections(live);
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(receiver.received).toHaveLength(0);
        clock.advance(LEASE_MS + 1);
        live.get<WebhookRunner>(APP.WebhookRunner).wake();
        await receiver.waitFor(1);
        await waitFor(async () => (await deliveryRows(database))[0]?.status === 'delivered', 5000);
      } finally {
        await closeConnections(live);
      }
    } finally {
      await receiver.close();
    }
  });

  it('on shutdown cancels a send still in flight after 2 s, recorded and due again at once', async () => {
    const clock = new FakeClock(new Date().toISOString());
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 8000 }));
    try {
      const database = await openOnce();
      const service = instance(database, target.url, clock);
      await startConnections(service);
      await service.get(AddWebhook).execute({ url: receiver.url, events: null });
      await recordChange(service, await addPerson(service, database));
      await receiver.waitFor(1);
      const started = Date.now();
      await closeConnections(service);
      expect(Date.now() - started).toBeLessThan(4000);
      const [row] = await deliveryRows(database);
      expect(row).toMatchObject({
        status: 'pending',
        attempts: 1,
        errors: ['cancelled: the service was shutting down'],
      });
      expect(row.next_attempt_at.getTime()).toBeLessThanOrEqual(clock.now().getTime());
    } finally {
      await receiver.close();
    }
  });
});

const postgres = testDatabases.find((t) => t.url !== null);
const describeOnPostgres = postgres === undefined ? describe.skip : describe;

describeOnPostgres('two instances on one PostgreSQL', () => {
  it('deliver each change exactly once between them', async () => {
    const url = postgres?.url ?? '';
    const receiver = await startReceiver();
    const first = await openTestDatabase({ name: 'postgres', url });
    const second = await openSameSchema(first, url);
    const clock = new FakeClock(new Date().toISOString());
    const a = instance(first, url, clock);
    const b = instance(second, url, clock);
    try {
      await Promise.all([startConnections(a), startConnections(b)]);
      await a.get(AddWebhook).execute({ url: receiver.url, events: null });
      const personId = await addPerson(a, first);
      const count = 60;
      await Promise.all(Array.from({ length: count }, (_, i) => recordChange(i % 2 === 0 ? a : b, personId)));
      await receiver.waitFor(count);
      // Anything sent twice would arrive within this.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(count);
      expect(new Set(ids).size).toBe(count);
      const seqs = receiver.received.map((r) => JSON.parse(r.body).seq as number);
      expect(new Set(seqs).size).toBe(count);
      const rows = await deliveryRows(first);
      expect(rows).toHaveLength(count);
      expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
    } finally {
      await Promise.all([closeConnections(a), closeConnections(b)]);
      await receiver.close();
      await second.close();
      await first.close();
    }
  });
});
