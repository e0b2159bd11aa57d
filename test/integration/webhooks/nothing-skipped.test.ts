import request from 'supertest';
import { APP, closeConnections, startConnections } from '../../../src/container';
import { HttpWebhookSender } from '../../../src/infrastructure/webhooks/http-webhook-sender';
import type { WebhookRunner } from '../../../src/infrastructure/webhooks/webhook-runner';
import { FakeClock } from '../../unit/support/fake-clock';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { waitFor } from '../multi-instance/instances';
import { type Received, type Receiver, startReceiver } from './receiver';

const HOUR = 3600_000;

interface Listed {
  state: string;
  disabled_reason: string | null;
  behind: { changes: number; or_more: boolean; oldest_at: string | null; oldest_seq: number | null };
}

const seqOf = (message: Received): number => JSON.parse(message.body).seq;

// SPEC §7, "Nothing is skipped, disabled or not", and issue 46: a receiver that answered 410 to a
// delivery sent again by hand, while later changes waited for their retries, lost them for good.
describe.each(testDatabases)(
  'a disabled webhook subscription keeps what waits for it, on $name',
  (target) => {
    let t: TestApp;
    let writer: string;
    let runner: WebhookRunner;
    const clock = new FakeClock(new Date().toISOString());
    const receivers: Receiver[] = [];

    beforeAll(async () => {
      t = await createTestApp(target, {
        // One send at a time: the order in which the receiver gets them is the order they were sent.
        env: { WEBHOOK_CONCURRENCY: '1' },
        overrides: { clock, webhookPollMs: 25, webhookSender: new HttpWebhookSender(400) },
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

    const tool = (argv: string[]) => cli(t.database, argv, { overrides: { clock } });

    async function subscribe(url: string): Promise<number> {
      const result = await tool(['webhooks', 'add', url]);
      expect(result.code).toBe(0);
      return Number(/^id: (\d+)$/m.exec(result.stdout)?.[1]);
    }

    /** A person.updated committed; its seq. */
    async function change(personId: number): Promise<number> {
      const res = await request(t.app)
        .patch(`/people/${personId}`)
        .set('Authorization', `Bearer ${writer}`)
        .send({ 'person[first_name]': uniqueName('Name') });
      expect(res.status).toBe(200);
      const [{ seq }] = await t.database.dataSource.query('SELECT max(seq) AS seq FROM changes');
      return Number(seq);
    }

    async function deliveries(
      id: number,
    ): Promise<{ id: number; seq: number; status: string; webhook_id: string }[]> {
      const result = await tool(['webhooks', 'deliveries', String(id), '--json']);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout);
    }

    async function listed(id: number): Promise<Listed> {
      const result = await tool(['webhooks', 'list', '--json']);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout).find((row: { id: number }) => row.id === id);
    }

    async function metric(name: string, id: number): Promise<number> {
      const text = (await request(t.app).get('/metrics').expect(200)).text;
      const line = new RegExp(`^${name}\\{subscription="${id}"\\} (\\S+)$`, 'm').exec(text);
      return Number(line?.[1]);
    }

    /** Every attempt due at the clock's time has been made and recorded (or the subscription is disabled). */
    async function settled(id: number): Promise<boolean> {
      const [{ busy }] = await t.database.dataSource.query(
        `SELECT count(*)::int AS busy FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE s.id = $1 AND s.disabled_at IS NULL AND d.status = 'pending'
          AND (d.next_attempt_at <= $2 OR d.lease_until IS NOT NULL)`,
        [id, clock.now()],
      );
      return busy === 0;
    }

    /**
     * The production sequence up to the moment the subscription fails: change A delivered, B and C
     * waiting for their retries, A sent again by hand. The receiver then answers as `then` says.
     */
    async function deliveredThenFailing(then: number) {
      let status = 200;
      const hook = await startReceiver(() => ({ status }));
      receivers.push(hook);
      const id = await subscribe(hook.url);
      const personId = (await t.addPeople([newPerson()]))[0];
      const a = await change(personId);
      await hook.waitFor(1);
      await waitFor(async () => (await deliveries(id))[0]?.status === 'delivered', 5000);
      status = 503;
      const [b, c] = [await change(personId), await change(personId)];
      await hook.waitFor(3);
      await waitFor(
        async () => (await deliveries(id)).filter((d) => d.status === 'pending').length === 2,
        5000,
      );
      const first = new Map((await deliveries(id)).map((d) => [d.seq, d.webhook_id]));

      status = then;
      const resend = (await deliveries(id)).find((d) => d.seq === a);
      expect(await tool(['webhooks', 'redeliver', String(resend?.id)])).toMatchObject({ code: 0 });
      runner.wake();
      await hook.waitFor(4);
      expect(seqOf(hook.received[3])).toBe(a);
      return { hook, id, personId, a, b, c, first, answer: (next: number) => (status = next) };
    }

    /** After the subscription was disabled: what waits is kept, shown and counted, and enable sends it in order. */
    async function keptThenResumed(run: Awaited<ReturnType<typeof deliveredThenFailing>>, reason: RegExp) {
      const { hook, id, personId, a, b, c, first } = run;
      const disabled = await listed(id);
      expect(disabled.disabled_reason).toMatch(reason);
      expect(disabled.behind).toMatchObject({ changes: 2, or_more: false, oldest_seq: b });
      expect(disabled.state).toBe('disabled');
      const table = (await tool(['webhooks', 'list'])).stdout;
      expect(table).toMatch(/^ID\s+URL\s+EVENTS\s+CREATED\s+STATE\s+WAITING\s+OLDEST_SEQ\s+NOTE$/m);
      expect(table).toMatch(
        new RegExp(
          `^${id}\\s.*\\sdisabled\\s+2 changes, oldest \\d+ s\\s+${b}\\s+since .*resume with: webhooks enable ${id}$`,
          'm',
        ),
      );
      expect(await metric('webhook_undelivered_changes', id)).toBe(2);
      expect(await metric('webhook_oldest_undelivered_age_seconds', id)).toBeGreaterThan(0);
      // B and C wait; A, which the receiver had, is the resend that failed.
      expect(Object.fromEntries((await deliveries(id)).map((d) => [d.seq, d.status]))).toEqual({
        [a]: 'failed',
        [b]: 'pending',
        [c]: 'pending',
      });
      expect((await tool(['webhooks', 'deliveries', String(id)])).stdout).toMatch(
        new RegExp(
          `^\\d+  seq ${b}  person\\.updated  msg_\\w+  pending, waiting for: webhooks enable ${id}  \\(`,
          'm',
        ),
      );

      // Nothing is sent while it is disabled, and what is committed meanwhile waits too.
      const d = await change(personId);
      const sent = hook.received.length;
      clock.advance(12.5 * HOUR);
      runner.wake();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.received).toHaveLength(sent);
      expect((await listed(id)).behind).toMatchObject({ changes: 3, oldest_seq: b });
      expect(await metric('webhook_undelivered_changes', id)).toBe(3);

      run.answer(200);
      const enabled = await tool(['webhooks', 'enable', String(id)]);
      expect(enabled).toMatchObject({ code: 0, stderr: '' });
      expect(enabled.stdout).toMatch(
        new RegExp(
          `^subscription ${id} enabled\\nsending what waited, oldest first, from seq ${b}: 3 changes, oldest .*\\n$`,
        ),
      );
      runner.wake();
      const resumed = (await hook.waitFor(sent + 3)).slice(sent);
      expect(resumed.map(seqOf)).toEqual([b, c, d]);
      // The waiting ones under their own webhook-ids, as a receiver that saw a failed attempt knows them.
      expect(resumed.slice(0, 2).map((m) => m.headers['webhook-id'])).toEqual([first.get(b), first.get(c)]);
      await waitFor(async () => (await listed(id)).behind.changes === 0, 10_000);
      expect(await listed(id)).toMatchObject({ state: 'active', behind: { changes: 0, oldest_seq: null } });
      expect((await tool(['webhooks', 'list'])).stdout).toMatch(
        new RegExp(`^${id}\\s.*\\sactive\\s+up to date\\s+-$`, 'm'),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hook.received).toHaveLength(sent + 3);
    }

    it('keeps the changes waiting for retries when a resend by hand meets a 410, and enable sends them oldest first', async () => {
      const run = await deliveredThenFailing(410);
      await waitFor(async () => (await listed(run.id)).disabled_reason !== null, 5000);
      await keptThenResumed(run, /410 Gone/);
    });

    it('keeps them too when three days without a success disable it', async () => {
      const run = await deliveredThenFailing(500);
      for (let step = 0; step < 20 && (await listed(run.id)).disabled_reason === null; step++) {
        // Past the longest wait (10 h + 20 % jitter); every attempt then due is made before the next step.
        clock.advance(12.5 * HOUR);
        runner.wake();
        await waitFor(() => settled(run.id), 10_000);
      }
      await keptThenResumed(run, /no delivery succeeded for 3 days/);
    });
  },
);
