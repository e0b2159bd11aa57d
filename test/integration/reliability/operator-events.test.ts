import request from 'supertest';
import { closeConnections, startConnections } from '../../../src/container';
import { HttpWebhookSender } from '../../../src/infrastructure/webhooks/http-webhook-sender';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { memoryLogger } from '../../support/memory-logger';
import { cli } from '../cli/cli-harness';
import { waitFor } from '../multi-instance/instances';
import { type Receiver, startReceiver } from '../webhooks/receiver';

/** The value of one series in a Prometheus text answer, or undefined when it is not there. */
function series(metrics: string, name: string): number | undefined {
  const escaped = name.replace(/[{}"=.]/g, (c) => `\\${c}`);
  const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(metrics);
  return match === null ? undefined : Number(match[1]);
}

describe.each(testDatabases)('what the operator sees, on $name', (target) => {
  let t: TestApp;
  let log: ReturnType<typeof memoryLogger>;
  let writer: string;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    log = memoryLogger();
    t = await createTestApp(target, {
      env: { LOG_LEVEL: 'trace', TRUST_PROXY: 'loopback' },
      overrides: { logger: log.logger, webhookPollMs: 25, webhookSender: new HttpWebhookSender(400) },
    });
    writer = await t.tokenWith(['read', 'write']);
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

  const metrics = async () => (await request(t.app).get('/metrics').expect(200)).text;
  const events = (name: string) => log.lines().filter((line) => line.event === name);

  async function receiver(answer: Receiver['answer']): Promise<Receiver> {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  }

  async function subscribe(url: string): Promise<number> {
    const result = await cli(t.database, ['webhooks', 'add', url]);
    expect(result.code).toBe(0);
    return Number(/^id: (\d+)$/m.exec(result.stdout)?.[1]);
  }

  async function change(): Promise<void> {
    const [id] = await t.addPeople([newPerson()]);
    await request(t.app)
      .patch(`/people/${id}`)
      .set('Authorization', `Bearer ${writer}`)
      .send({ 'person[first_name]': uniqueName('Name') })
      .expect(200);
  }

  it('a sign-in lockout starting: one line naming the username and the client address, and counted', async () => {
    const account = await t.createAccount();
    const wrong = `Basic ${Buffer.from(`${account.username}:not-the-password`).toString('base64')}`;
    const attacker = '203.0.113.77';
    const before = series(await metrics(), 'signin_lockouts_total');
    expect(before).toBe(0);
    for (let i = 0; i < 10; i++) {
      await request(t.app)
        .post('/keys')
        .set('Authorization', wrong)
        .set('X-Forwarded-For', attacker)
        .expect(401);
    }
    await request(t.app)
      .post('/keys')
      .set('Authorization', wrong)
      .set('X-Forwarded-For', attacker)
      .set('X-Request-Id', 'locked-out')
      .expect(429);

    expect(events('signin.lockout_started')).toEqual([
      expect.objectContaining({
        level: 'warn',
        username: account.username.toLowerCase(),
        clientAddress: attacker,
        lockedOut: ['username', 'client address'],
        msg: expect.stringMatching(/^sign-in lockout started/),
      }),
    ]);
    // Every request line says who sent it, through the trusted proxy.
    expect(log.lines().find((line) => line.requestId === 'locked-out')).toMatchObject({
      status: 429,
      clientAddress: attacker,
    });
    const after = await metrics();
    expect(series(after, 'signin_lockouts_total')).toBe(1);
    expect(series(after, 'signin_password_check_refusals_total')).toBe(0);
  });

  it('a webhook delivery failing: one line per failed attempt with its status, attempt and next retry', async () => {
    const hook = await receiver(() => ({ status: 500 }));
    const id = await subscribe(hook.url);
    const before = series(await metrics(), 'webhook_deliveries_total{outcome="retrying"}') ?? 0;
    await change();
    await hook.waitFor(1);
    await waitFor(async () => events('webhook.delivery_failed').length > 0, 5000);
    const [line] = events('webhook.delivery_failed');
    expect(line).toMatchObject({
      level: 'warn',
      subscriptionId: id,
      seq: expect.any(Number),
      status: 500,
      error: 'HTTP 500',
      attempt: 1,
      gaveUp: false,
      nextAttemptAt: expect.any(String),
    });
    const wait = Date.parse(String(line.nextAttemptAt)) - Date.parse(String(line.time));
    expect(wait).toBeGreaterThan(3000);
    expect(wait).toBeLessThan(7000);
    expect(JSON.stringify(line)).not.toContain(hook.url);

    await waitFor(
      async () => series(await metrics(), 'webhook_deliveries_total{outcome="retrying"}') === before + 1,
      5000,
    );
    const text = await metrics();
    // The change waits for its retry: the subscription is one change behind, since it was made.
    expect(series(text, `webhook_undelivered_changes{subscription="${id}"}`)).toBe(1);
    expect(series(text, `webhook_oldest_undelivered_age_seconds{subscription="${id}"}`)).toBeGreaterThan(0);
    expect(series(text, `webhook_subscription_disabled{subscription="${id}"}`)).toBe(0);
  });

  it('a subscription disabled: one line with the reason and how to enable it again', async () => {
    const hook = await receiver(() => ({ status: 410 }));
    const id = await subscribe(hook.url);
    const delivered = series(await metrics(), 'webhook_deliveries_total{outcome="delivered"}');
    await change();
    await hook.waitFor(1);
    await waitFor(async () => events('webhook.subscription_disabled').length > 0, 5000);
    expect(events('webhook.subscription_disabled')).toEqual([
      expect.objectContaining({
        level: 'error',
        subscriptionId: id,
        reason: 'the receiver answered 410 Gone',
        msg: expect.stringContaining(`webhooks enable ${id}`),
      }),
    ]);
    expect(events('webhook.delivery_failed').at(-1)).toMatchObject({
      subscriptionId: id,
      gaveUp: true,
      status: 410,
    });
    const text = await metrics();
    expect(series(text, 'webhook_deliveries_total{outcome="failed"}')).toBeGreaterThanOrEqual(1);
    expect(series(text, 'webhook_deliveries_total{outcome="delivered"}')).toBe(delivered);
    expect(series(text, `webhook_subscription_disabled{subscription="${id}"}`)).toBe(1);
  });

  it('a subscription that keeps up is 0 changes and 0 seconds behind', async () => {
    const hook = await receiver(() => ({ status: 204 }));
    const id = await subscribe(hook.url);
    await change();
    await hook.waitFor(1);
    await waitFor(
      async () => series(await metrics(), `webhook_undelivered_changes{subscription="${id}"}`) === 0,
      5000,
    );
    const text = await metrics();
    expect(series(text, `webhook_oldest_undelivered_age_seconds{subscription="${id}"}`)).toBe(0);
    expect(series(text, 'webhook_deliveries_total{outcome="delivered"}')).toBeGreaterThanOrEqual(1);
  });
});
