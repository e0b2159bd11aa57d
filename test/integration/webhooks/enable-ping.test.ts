import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { APP, closeConnections, startConnections } from '../../../src/container';
import { buildOpenApiDocument } from '../../../src/http/openapi/openapi-document';
import { HttpWebhookSender } from '../../../src/infrastructure/webhooks/http-webhook-sender';
import type { WebhookRunner } from '../../../src/infrastructure/webhooks/webhook-runner';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { DocumentedAnswers } from '../docs/documented-answers';
import { waitFor } from '../multi-instance/instances';
import { deadUrl, type Receiver, startReceiver } from './receiver';

describe.each(testDatabases)('webhooks enable, ping and how far behind, on $name', (target) => {
  let t: TestApp;
  let writer: string;
  let runner: WebhookRunner;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await createTestApp(target, {
      overrides: { webhookPollMs: 25, webhookSender: new HttpWebhookSender(400) },
    });
    writer = await t.tokenWith(['read', 'write']);
    runner = t.container.get<WebhookRunner>(APP.WebhookRunner);
    await startConnections(t.container);
  });
  afterEach(async () => {
    await t.database.dataSource.query('DELETE FROM webhook_subscriptions');
  });
  afterAll(async () => {
    await closeConnections(t.container);
    await Promise.all(receivers.map((r) => r.close()));
    await t.close();
  });

  async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  }

  const tool = (argv: string[]) => cli(t.database, argv);

  async function subscribe(url: string): Promise<{ id: number; secret: string }> {
    const result = await tool(['webhooks', 'add', url]);
    expect(result.code).toBe(0);
    return {
      id: Number(/^id: (\d+)$/m.exec(result.stdout)?.[1]),
      secret: /^secret: (whsec_\S+)$/m.exec(result.stdout)?.[1] ?? '',
    };
  }

  async function change(): Promise<number> {
    const [id] = await t.addPeople([newPerson()]);
    await request(t.app)
      .patch(`/people/${id}`)
      .set('Authorization', `Bearer ${writer}`)
      .send({ 'person[first_name]': uniqueName('Name') })
      .expect(200);
    return id;
  }

  async function listed(id: number): Promise<{
    disabled_at: string | null;
    behind: { changes: number; or_more: boolean; oldest_at: string | null; oldest_seq: number | null };
  }> {
    const result = await tool(['webhooks', 'list', '--json']);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout).find((row: { id: number }) => row.id === id);
  }

  async function latestSeq(): Promise<number> {
    const [{ seq }] = await t.database.dataSource.query('SELECT coalesce(max(seq), 0) AS seq FROM changes');
    return Number(seq);
  }

  describe('enable', () => {
    it('resumes a disabled subscription with its id and secret: what failed and what was missed are delivered', async () => {
      let gone = true;
      const hook = await receiver(() => ({ status: gone ? 410 : 204 }));
      const { id, secret } = await subscribe(hook.url);
      await change();
      const [refused] = await hook.waitFor(1);
      await waitFor(async () => (await listed(id)).disabled_at !== null, 5000);

      // Changes made while it is disabled are not sent, and they wait with the refused one.
      const missed = [await change(), await change()];
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hook.received).toHaveLength(1);
      const behind = await listed(id);
      const refusedSeq = JSON.parse(refused.body).seq;
      expect(behind.behind).toEqual({
        changes: 3,
        or_more: false,
        oldest_at: expect.any(String),
        oldest_seq: refusedSeq,
      });
      const table = await tool(['webhooks', 'list']);
      expect(table.stdout).toMatch(/^ID\s+URL\s+EVENTS\s+CREATED\s+STATE\s+WAITING\s+OLDEST_SEQ\s+NOTE$/m);
      expect(table.stdout).toMatch(
        new RegExp(
          `^${id}\\s.*\\sdisabled\\s+3 changes, oldest \\d+ s\\s+${refusedSeq}\\s+since .*410 Gone; resume with: webhooks enable ${id}$`,
          'm',
        ),
      );

      gone = false;
      const enabled = await tool(['webhooks', 'enable', String(id)]);
      expect(enabled).toMatchObject({ code: 0, stderr: '' });
      expect(enabled.stdout).toBe(
        `subscription ${id} enabled\nsending what waited, oldest first, from seq ${refusedSeq}: 3 changes, oldest ${/changes, oldest (.*)\n/.exec(enabled.stdout)?.[1]}\n`,
      );
      runner.wake();
      const all = await hook.waitFor(4);
      const again = all.slice(1);
      // Signed by the same secret; the refused one again under its own webhook-id.
      const payloads = again.map(
        (m) => new Webhook(secret).verify(m.body, m.headers) as { person_id: number },
      );
      expect(again.map((m) => m.headers['webhook-id'])).toContain(refused.headers['webhook-id']);
      expect(payloads.map((p) => p.person_id)).toEqual(expect.arrayContaining(missed));
      // As the OpenAPI document's webhooks section describes them.
      const documented = new DocumentedAnswers(buildOpenApiDocument());
      for (const payload of payloads) expect(documented.validates('WebhookChange', payload)).toBe(true);
      // The runner marks them delivered after the receiver answered: a moment more on a busy machine.
      await waitFor(async () => (await listed(id)).behind.changes === 0, 20_000);
      expect(await listed(id)).toMatchObject({ disabled_at: null, behind: { changes: 0, oldest_at: null } });
      expect((await tool(['webhooks', 'list'])).stdout).toMatch(
        new RegExp(`^${id}\\s.*\\sactive\\s+up to date\\s+-$`, 'm'),
      );

      // Enabling an active subscription changes nothing.
      expect(await tool(['webhooks', 'enable', String(id)])).toMatchObject({
        code: 0,
        stdout: `subscription ${id} is already active; nothing changed\n`,
      });
    });

    it('warns when retention removed changes it missed: the receiver must list /people again', async () => {
      const hook = await receiver(() => ({ status: 410 }));
      const { id } = await subscribe(hook.url);
      await change();
      await hook.waitFor(1);
      await waitFor(async () => (await listed(id)).disabled_at !== null, 5000);
      await change();
      // What the retention job does to the feed's mark once the missed change is old enough.
      await t.database.dataSource.query(
        'UPDATE directory_meta SET changes_pruned_through = (SELECT max(seq) FROM changes)',
      );
      const enabled = await tool(['webhooks', 'enable', String(id)]);
      expect(enabled.code).toBe(0);
      expect(enabled.stderr).toMatch(
        /^Some changes made while it was disabled are older than CHANGES_RETENTION_DAYS/,
      );
    });

    it('redeliver on a disabled subscription points to webhooks enable', async () => {
      const hook = await receiver(() => ({ status: 410 }));
      const { id } = await subscribe(hook.url);
      await change();
      await hook.waitFor(1);
      await waitFor(async () => (await listed(id)).disabled_at !== null, 5000);
      const [delivery] = JSON.parse((await tool(['webhooks', 'deliveries', String(id), '--json'])).stdout);
      const result = await tool(['webhooks', 'redeliver', String(delivery.id)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `error: subscription ${id} is disabled (the receiver answered 410 Gone); enable it again with: webhooks enable ${id}\n`,
      );
    });

    it('answers one line for an unknown id', async () => {
      expect(await tool(['webhooks', 'enable', '999999999'])).toMatchObject({
        code: 1,
        stderr: 'error: no webhook subscription 999999999\n',
      });
    });
  });

  describe('ping', () => {
    it('POSTs a signed webhook.ping, prints the status and time, and records nothing', async () => {
      const hook = await receiver(() => ({ status: 204 }));
      const { id, secret } = await subscribe(hook.url);
      const seq = await latestSeq();
      const result = await tool(['webhooks', 'ping', String(id)]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(
        new RegExp(
          `^${hook.url.replace(/[.]/g, '\\.')}: HTTP 204 in \\d+ ms \\(webhook-id msg_[0-9a-f]{32}\\)\\n$`,
        ),
      );
      const [message] = await hook.waitFor(1);
      const payload = new Webhook(secret).verify(message.body, message.headers);
      expect(payload).toEqual({ type: 'webhook.ping', subscription_id: id, at: expect.any(String) });
      expect(new DocumentedAnswers(buildOpenApiDocument()).validates('WebhookPing', payload)).toBe(true);
      expect(new DocumentedAnswers(buildOpenApiDocument()).validates('WebhookChange', payload)).toBe(false);
      expect(message.headers['webhook-id']).toBe(/webhook-id (msg_\w+)/.exec(result.stdout)?.[1]);
      // Not a change and not a delivery.
      expect(await latestSeq()).toBe(seq);
      expect((await tool(['webhooks', 'deliveries', String(id), '--json'])).stdout.trim()).toBe('[]');
      // Each ping is a new message.
      await tool(['webhooks', 'ping', String(id)]);
      const [, second] = await hook.waitFor(2);
      expect(second.headers['webhook-id']).not.toBe(message.headers['webhook-id']);
    });

    it('tries the receiver of a disabled subscription, and exits 1 when it does not answer 2xx', async () => {
      let status = 410;
      const hook = await receiver(() => ({ status }));
      const { id } = await subscribe(hook.url);
      await change();
      await hook.waitFor(1);
      await waitFor(async () => (await listed(id)).disabled_at !== null, 5000);
      const { disabled_at } = await listed(id);

      const refused = await tool(['webhooks', 'ping', String(id)]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        /^error: http:\/\/127\.0\.0\.1:\d+\/hooks: HTTP 410 in \d+ ms \(webhook-id msg_\w+\): HTTP 410\n$/,
      );
      status = 200;
      expect(await tool(['webhooks', 'ping', String(id)])).toMatchObject({ code: 0, stderr: '' });
      // Still disabled: a ping enables nothing.
      expect((await listed(id)).disabled_at).toBe(disabled_at);
    });

    it('says so when nothing listens there', async () => {
      const { id } = await subscribe(await deadUrl());
      const result = await tool(['webhooks', 'ping', String(id)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/: no answer in \d+ ms \(webhook-id msg_\w+\): connection refused\n$/);
    });
  });

  it('lists how far behind a failing subscription is: its change waiting for a retry, and since when', async () => {
    const { id } = await subscribe(await deadUrl());
    await change();
    await waitFor(async () => (await listed(id)).behind.changes === 1, 5000);
    const row = await listed(id);
    expect(row.disabled_at).toBeNull();
    expect(Date.now() - Date.parse(String(row.behind.oldest_at))).toBeLessThan(60_000);
    expect((await tool(['webhooks', 'list'])).stdout).toMatch(
      new RegExp(`^${id}\\s.*\\sactive\\s+1 change, oldest \\d+ s\\s+\\d+$`, 'm'),
    );
  });

  it('counts a long backlog up to 1,000 changes, and says "or more"', async () => {
    const { id } = await subscribe(await deadUrl());
    await t.database.dataSource.query(
      "UPDATE webhook_subscriptions SET disabled_at = now(), disabled_reason = 'test' WHERE id = $1",
      [id],
    );
    // Changes as the log holds them, past the subscription's cursor (no person needed for a count).
    await t.database.dataSource.query(
      `INSERT INTO changes (seq, type, person_id)
       SELECT (SELECT coalesce(max(seq), 0) FROM changes) + g, 'person.created', 2147483000 FROM generate_series(1, 1005) g`,
    );
    expect((await listed(id)).behind).toEqual({
      changes: 1000,
      or_more: true,
      oldest_at: expect.any(String),
      oldest_seq: expect.any(Number),
    });
    expect((await tool(['webhooks', 'list'])).stdout).toMatch(
      new RegExp(`^${id}\\s.*\\sdisabled\\s+1000 changes or more, oldest \\d+ s\\s+\\d+\\s+since `, 'm'),
    );
  });

  it("counts a member's person.removed, and none of an admin's other changes (person.created), as the feed shows them", async () => {
    const { id } = await subscribe(await deadUrl());
    await t.database.dataSource.query(
      "UPDATE webhook_subscriptions SET disabled_at = now(), disabled_reason = 'test', sent_seq = (SELECT coalesce(max(seq), 0) FROM changes) WHERE id = $1",
      [id],
    );
    const admin = await t.createAccount({ role: 'admin' });
    await t.database.dataSource.query(
      `INSERT INTO changes (seq, type, person_id)
       SELECT (SELECT coalesce(max(seq), 0) FROM changes) + g, t, $1
       FROM unnest(ARRAY['person.created', 'person.removed']) WITH ORDINALITY AS x(t, g)`,
      [admin.personId],
    );
    expect((await listed(id)).behind).toMatchObject({ changes: 1 });
  });
});
