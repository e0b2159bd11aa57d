import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { APP, closeConnections, startConnections } from '../../../src/container';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { HttpWebhookSender } from '../../../src/infrastructure/webhooks/http-webhook-sender';
import type { WebhookRunner } from '../../../src/infrastructure/webhooks/webhook-runner';
import { FakeClock } from '../../unit/support/fake-clock';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { waitFor } from '../multi-instance/instances';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { backupPath, openEmptyDatabase } from './backup-support';

const OVERRIDES = { webhookPollMs: 25, webhookSender: new HttpWebhookSender(400) };
// One send at a time: the order in which the receiver gets them is the order they were sent.
const ONE_AT_A_TIME = { WEBHOOK_CONCURRENCY: '1' };

// SPEC §5: a restored copy starts every webhook subscription disabled, and `webhooks enable ID`
// resumes it from where the backup left it.
describe.each(testDatabases)('webhook subscriptions of a restored directory, on $name', (target) => {
  let original: TestApp;
  let copy: TestApp | null = null;
  let restored: Database | null = null;
  let receiver: Receiver;
  // Stopped: the retry the original scheduled never falls due by itself.
  const clock = new FakeClock(new Date().toISOString());

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 503 }));
    original = await createTestApp(target, { env: ONE_AT_A_TIME, overrides: { ...OVERRIDES, clock } });
  });
  afterAll(async () => {
    if (copy !== null) {
      await closeConnections(copy.container);
      await copy.close();
    }
    await restored?.close();
    await original.close();
    await receiver.close();
  });

  async function change(app: TestApp, token: string, personId: number): Promise<number> {
    const res = await request(app.app)
      .patch(`/people/${personId}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ 'person[first_name]': uniqueName('Name') });
    expect(res.status).toBe(200);
    const [{ seq }] = await app.database.dataSource.query('SELECT max(seq) AS seq FROM changes');
    return Number(seq);
  }

  it('sends nothing until enabled, then what the backup had not delivered, oldest first, and follows on', async () => {
    const added = await cli(original.database, ['webhooks', 'add', receiver.url]);
    const id = Number(/^id: (\d+)$/m.exec(added.stdout)?.[1]);
    const secret = /^secret: (whsec_\S+)$/m.exec(added.stdout)?.[1] ?? '';
    const writer = await original.tokenWith(['read', 'write']);
    const [personId] = await original.addPeople([newPerson()]);

    // At the backup: one change waiting for its retry, two not yet sent at all.
    await startConnections(original.container);
    const retried = await change(original, writer, personId);
    await receiver.waitFor(1);
    await waitFor(async () => {
      const [row] = await original.database.dataSource.query(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending' AND attempts = 1",
      );
      return row.n === 1;
    }, 5000);
    await closeConnections(original.container);
    const unsent = [await change(original, writer, personId), await change(original, writer, personId)];
    const file = backupPath();
    expect((await cli(original.database, ['backup', file])).code).toBe(0);

    restored = await openEmptyDatabase(target);
    const restore = await cli(restored, ['restore', file]);
    expect(restore).toMatchObject({ code: 0, stderr: '' });
    expect(restore.stdout).toContain(
      `\nwebhook subscription ${id} (${receiver.url}) starts disabled, so that this copy calls no receiver; resume it with: npm run cli -- webhooks enable ${id}\n`,
    );
    const listed = JSON.parse((await cli(restored, ['webhooks', 'list', '--json'])).stdout);
    expect(listed).toEqual([
      expect.objectContaining({
        id,
        state: 'disabled',
        disabled_reason: 'restored from a backup',
        behind: expect.objectContaining({ changes: 3, oldest_seq: retried }),
      }),
    ]);

    // The copy runs, with its own changes, and calls no one.
    copy = await createTestApp(target, { database: restored, env: ONE_AT_A_TIME, overrides: OVERRIDES });
    const runner = copy.container.get<WebhookRunner>(APP.WebhookRunner);
    await startConnections(copy.container);
    const later = await change(copy, writer, personId);
    runner.wake();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(1);

    receiver.answer = () => ({ status: 204 });
    const enabled = await cli(restored, ['webhooks', 'enable', String(id)]);
    expect(enabled).toMatchObject({ code: 0, stderr: '' });
    expect(enabled.stdout).toMatch(
      new RegExp(`sending what waited, oldest first, from seq ${retried}: 4 changes`),
    );
    runner.wake();
    const resumed = (await receiver.waitFor(5)).slice(1);
    const payloads = resumed.map((m) => new Webhook(secret).verify(m.body, m.headers) as { seq: number });
    expect(payloads.map((p) => p.seq)).toEqual([retried, ...unsent, later]);
    // The change that waited for its retry goes under the webhook-id of its first attempt.
    expect(resumed[0].headers['webhook-id']).toBe(receiver.received[0].headers['webhook-id']);
  });
});
