import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { APP, closeConnections, startConnections } from '../../../src/container';
import { HttpWebhookSender } from '../../../src/infrastructure/webhooks/http-webhook-sender';
import type { WebhookRunner } from '../../../src/infrastructure/webhooks/webhook-runner';
import { FakeClock } from '../../unit/support/fake-clock';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from '../cli/cli-harness';
import { waitFor } from '../multi-instance/instances';
import { deadUrl, type Receiver, startReceiver } from './receiver';

const HOUR = 3600_000;

interface DeliveryJson {
  id: number;
  seq: number;
  type: string;
  webhook_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: { at: string; status: number | null; duration_ms: number; error: string | null }[];
  next_attempt_at: string | null;
}

describe.each(testDatabases)('webhooks on $name', (target) => {
  let t: TestApp;
  let writer: string;
  let runner: WebhookRunner;
  const clock = new FakeClock(new Date().toISOString());
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await createTestApp(target, {
      overrides: { clock, webhookPollMs: 25, webhookSender: new HttpWebhookSender(400) },
    });
    writer = await t.tokenWith(['read', 'write']);
    runner = t.container.get<WebhookRunner>(APP.WebhookRunner);
    await startConnections(t.container);
  });
  afterEach(async () => {
    // Each test's subscriptions are its own: later changes must not reach its receivers.
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

  const tool = (argv: string[]) => cli(t.database, argv, { overrides: { clock } });

  async function subscribe(url: string, events?: string): Promise<{ id: number; secret: string }> {
    const result = await tool(['webhooks', 'add', url, ...(events ? ['--events', events] : [])]);
    expect(result).toMatchObject({ code: 0 });
    const id = Number(/^id: (\d+)$/m.exec(result.stdout)?.[1]);
    const secret = /^secret: (whsec_\S+)$/m.exec(result.stdout)?.[1] ?? '';
    return { id, secret };
  }

  async function deliveries(id: number, failed = false): Promise<DeliveryJson[]> {
    const result = await tool([
      'webhooks',
      'deliveries',
      String(id),
      '--json',
      ...(failed ? ['--failed'] : []),
    ]);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout);
  }

  async function person(): Promise<number> {
    const [id] = await t.addPeople([newPerson()]);
    return id;
  }

  async function change(id: number): Promise<void> {
    const res = await request(t.app)
      .patch(`/people/${id}`)
      .set('Authorization', `Bearer ${writer}`)
      .send({ 'person[first_name]': uniqueName('Name') });
    expect(res.status).toBe(200);
  }

  /** Moves the schedule's clock on and lets the runner look at once. */
  function advance(ms: number): void {
    clock.advance(ms);
    runner.wake();
  }

  it('POSTs each change signed by the Standard Webhooks scheme, which the library verifies', async () => {
    const hook = await receiver();
    const { id, secret } = await subscribe(hook.url);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const personId = await person();
    await change(personId);

    const [message] = await hook.waitFor(1);
    const payload = new Webhook(secret).verify(message.body, message.headers) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(['type', 'seq', 'person_id', 'at', 'cursor']);
    expect(payload).toMatchObject({ type: 'person.updated', person_id: personId });
    expect(typeof payload.seq).toBe('number');
    const cursor = Buffer.from(String(payload.cursor), 'base64url').toString('utf8');
    expect(cursor).toMatch(new RegExp(`^v1\\.[0-9a-f-]{36}\\.${payload.seq}$`));
    expect(message.headers['content-type']).toBe('application/json');
    expect(message.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(message.body, message.headers),
    ).toThrow('No matching signature found');

    await waitFor(async () => (await deliveries(id))[0]?.status === 'delivered', 5000);
    const [delivery] = await deliveries(id);
    expect(delivery).toMatchObject({
      seq: payload.seq,
      type: 'person.updated',
      webhook_id: message.headers['webhook-id'],
    });
    expect(delivery.attempts).toEqual([expect.objectContaining({ status: 200, error: null })]);
  });

  it('retries a failed delivery about 5 s later with the same webhook-id, and records both attempts', async () => {
    const hook = await receiver((n) => ({ status: n === 1 ? 500 : 204 }));
    const { id, secret } = await subscribe(hook.url);
    await change(await person());
    await hook.waitFor(1);
    await waitFor(async () => (await deliveries(id))[0]?.attempts.length === 1, 5000);
    const [pending] = await deliveries(id);
    expect(pending.status).toBe('pending');
    const wait = Date.parse(pending.next_attempt_at ?? '') - Date.parse(pending.attempts[0].at);
    expect(wait).toBeGreaterThanOrEqual(4000);
    expect(wait).toBeLessThanOrEqual(6000);
    expect(await deliveries(id, true)).toHaveLength(1);
    const failingSince = async () =>
      (
        await t.database.dataSource.query('SELECT failing_since FROM webhook_subscriptions WHERE id = $1', [
          id,
        ])
      )[0].failing_since;
    expect(await failingSince()).toEqual(new Date(pending.attempts[0].at));

    // Not before its time.
    advance(3000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hook.received).toHaveLength(1);
    advance(3001);
    const [first, second] = await hook.waitFor(2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    new Webhook(secret).verify(second.body, second.headers);
    await waitFor(async () => (await deliveries(id))[0]?.status === 'delivered', 5000);
    const [delivered] = await deliveries(id);
    expect(delivered.attempts.map((a) => [a.status, a.error])).toEqual([
      [500, 'HTTP 500'],
      [204, null],
    ]);
    expect(await deliveries(id, true)).toHaveLength(0);
    // The 3 days without success start again from the next failure.
    expect(await failingSince()).toBeNull();
  });

  it('disables the subscription at once when the receiver answers 410 Gone, keeping the change waiting', async () => {
    const hook = await receiver(() => ({ status: 410 }));
    const { id } = await subscribe(hook.url);
    const personId = await person();
    await change(personId);
    await hook.waitFor(1);
    await waitFor(async () => (await tool(['webhooks', 'list'])).stdout.includes('410 Gone'), 5000);
    const listed = await tool(['webhooks', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s.*disabled\\s+1 change, .*410 Gone`, 'm'));
    expect((await deliveries(id))[0]?.status).toBe('pending');

    await change(personId);
    advance(HOUR);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(1);
    const redeliver = await tool(['webhooks', 'redeliver', String((await deliveries(id))[0].id)]);
    expect(redeliver.code).toBe(1);
    expect(redeliver.stderr).toMatch(/^error: subscription \d+ is disabled/);
  });

  it('gives up on a receiver that answers too slowly, and never holds a request meanwhile', async () => {
    const hook = await receiver(() => ({ status: 200, delayMs: 3000 }));
    const { id } = await subscribe(hook.url);
    const personId = await person();
    const started = Date.now();
    await change(personId);
    await hook.waitFor(1);
    // The send is in flight: the API answers as usual.
    const read = await request(t.app).get(`/people/${personId}`).set('Authorization', `Bearer ${writer}`);
    expect(read.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
    await waitFor(async () => (await deliveries(id))[0]?.attempts.length === 1, 5000);
    const [delivery] = await deliveries(id);
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({ status: null, error: 'no answer within 400 ms' });
    expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(380);
  });

  it('records a refused connection and retries it, honouring Retry-After', async () => {
    const { id } = await subscribe(await deadUrl());
    await change(await person());
    await waitFor(async () => (await deliveries(id))[0]?.attempts.length === 1, 5000);
    expect((await deliveries(id))[0].attempts[0]).toMatchObject({
      status: null,
      error: 'connection refused',
    });

    const hook = await receiver(() => ({ status: 503, headers: { 'Retry-After': '3600' } }));
    const second = await subscribe(hook.url);
    await change(await person());
    await hook.waitFor(1);
    await waitFor(async () => (await deliveries(second.id))[0]?.attempts.length === 1, 5000);
    const [delivery] = await deliveries(second.id);
    const wait = Date.parse(delivery.next_attempt_at ?? '') - Date.parse(delivery.attempts[0].at);
    expect(wait).toBeGreaterThanOrEqual(3600_000);
    expect(wait).toBeLessThan(3600_000 + 5000);
  });

  it('does not follow a redirect: a 3xx is a failure, and the other address is never asked', async () => {
    const elsewhere = await receiver();
    const hook = await receiver(() => ({ status: 302, headers: { Location: elsewhere.url } }));
    const { id } = await subscribe(hook.url);
    await change(await person());
    await hook.waitFor(1);
    await waitFor(async () => (await deliveries(id))[0]?.attempts.length === 1, 5000);
    const [delivery] = await deliveries(id);
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({
      status: 302,
      error: `HTTP 302: redirect to ${elsewhere.url} not followed`,
    });
    expect(elsewhere.received).toHaveLength(0);
  });

  it('keeps retrying for 3 days, then disables the subscription, the change still waiting', async () => {
    const hook = await receiver(() => ({ status: 500 }));
    const { id } = await subscribe(hook.url);
    await change(await person());
    await hook.waitFor(1);
    const disabled = async () =>
      (
        await t.database.dataSource.query('SELECT disabled_at FROM webhook_subscriptions WHERE id = $1', [id])
      )[0].disabled_at !== null;
    let attempts = 1;
    for (let step = 0; step < 20; step++) {
      await waitFor(async () => (await deliveries(id))[0]?.attempts.length === attempts, 5000);
      if (await disabled()) break;
      // Past the longest wait (10 h + 20 % jitter).
      advance(12.5 * HOUR);
      attempts += 1;
    }
    const [delivery] = await deliveries(id);
    expect(delivery.status).toBe('pending');
    const span = Date.parse(delivery.attempts.at(-1)?.at ?? '') - Date.parse(delivery.attempts[0].at);
    expect(span).toBeGreaterThanOrEqual(72 * HOUR);
    expect(span).toBeLessThan(72 * HOUR + 13 * HOUR);
    const listed = await tool(['webhooks', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id, disabled_reason: 'no delivery succeeded for 3 days' }),
    ]);
  });

  it('signs with both secrets for a day after a rotation, then with the new one only', async () => {
    const hook = await receiver();
    const { id, secret: old } = await subscribe(hook.url);
    const rotated = await tool(['webhooks', 'rotate-secret', String(id)]);
    expect(rotated.code).toBe(0);
    const fresh = /^secret: (whsec_\S+)$/m.exec(rotated.stdout)?.[1] ?? '';
    expect(fresh).not.toBe(old);
    const personId = await person();
    await change(personId);
    const [message] = await hook.waitFor(1);
    expect(message.headers['webhook-signature'].split(' ')).toEqual([
      expect.stringMatching(/^v1,/),
      expect.stringMatching(/^v1,/),
    ]);
    expect(new Webhook(old).verify(message.body, message.headers)).toMatchObject({ person_id: personId });
    expect(new Webhook(fresh).verify(message.body, message.headers)).toMatchObject({ person_id: personId });

    advance(24 * HOUR + 1000);
    await change(personId);
    const [, later] = await hook.waitFor(2);
    expect(later.headers['webhook-signature'].split(' ')).toHaveLength(1);
    new Webhook(fresh).verify(later.body, later.headers);
    expect(() => new Webhook(old).verify(later.body, later.headers)).toThrow('No matching signature found');
  });

  it('sends only the event types asked for, and only changes made after the subscription', async () => {
    const personId = await person();
    await change(personId);
    const all = await receiver();
    const created = await receiver();
    await subscribe(all.url);
    const filtered = await subscribe(created.url, 'person.created,membership.started');
    await change(personId);
    const [message] = await all.waitFor(1);
    expect(JSON.parse(message.body)).toMatchObject({ type: 'person.updated', person_id: personId });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(all.received).toHaveLength(1);
    expect(created.received).toHaveLength(0);
    expect(await deliveries(filtered.id)).toEqual([]);
  });

  it('redelivers a delivered message by hand, with the same webhook-id', async () => {
    const hook = await receiver();
    const { id } = await subscribe(hook.url);
    await change(await person());
    const [first] = await hook.waitFor(1);
    await waitFor(async () => (await deliveries(id))[0]?.status === 'delivered', 5000);
    const [delivery] = await deliveries(id);
    const result = await tool(['webhooks', 'redeliver', String(delivery.id)]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    runner.wake();
    const [, again] = await hook.waitFor(2);
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    await waitFor(async () => (await deliveries(id))[0]?.attempts.length === 2, 5000);
  });

  describe('the command line', () => {
    it.each([
      ['ftp://example.org/hooks', 'only http and https URLs can receive webhooks, not ftp'],
      ['https://bot:pa55@example.org/hooks', 'the URL must not hold a user name or password'],
      ['example.org/hooks', 'is not a URL'],
    ])('refuses %s with a one-line reason', async (url, reason) => {
      const result = await tool(['webhooks', 'add', url]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(reason);
    });

    it('refuses unknown event types, naming them and the known ones', async () => {
      const result = await tool([
        'webhooks',
        'add',
        'http://127.0.0.1:9/x',
        '--events',
        'person.updated,person.moved',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^error: unknown event type "person.moved"; the types are person.created, /,
      );
      expect((await tool(['webhooks', 'list', '--json'])).stdout.trim()).toBe('[]');
    });

    it('lists, removes, and answers one line for an unknown id', async () => {
      const { id } = await subscribe('http://127.0.0.1:9/listed', 'person.erased');
      const listed = await tool(['webhooks', 'list']);
      expect(listed.stdout).toMatch(
        new RegExp(
          `^${id}\\s+http://127.0.0.1:9/listed\\s+person.erased\\s.*\\sactive\\s+up to date\\s+-$`,
          'm',
        ),
      );
      expect(listed.stdout).not.toMatch(/whsec_/);
      expect(await tool(['webhooks', 'remove', String(id)])).toMatchObject({ code: 0 });
      for (const argv of [
        ['webhooks', 'remove', String(id)],
        ['webhooks', 'rotate-secret', String(id)],
        ['webhooks', 'deliveries', String(id)],
        ['webhooks', 'redeliver', '999999999'],
      ]) {
        const result = await tool(argv);
        expect({ argv, code: result.code }).toEqual({ argv, code: 1 });
        expect(result.stderr).toMatch(/^error: no webhook (subscription|delivery) \d+\n$/);
      }
      const usage = await tool(['webhooks', 'remove', 'abc']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/^error: ID takes a positive whole number up to 2147483647, not "abc"/);
      const help = await tool(['webhooks', 'add', '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: npm run cli -- webhooks add URL \[--events TYPE,...\]/);
    });
  });
});
