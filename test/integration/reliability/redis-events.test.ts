import { createServer, type Server, type Socket, connect } from 'node:net';
import request from 'supertest';
import { APP } from '../../../src/container';
import type { RedisConnection } from '../../../src/infrastructure/rate-limit/redis-connection';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { memoryLogger } from '../../support/memory-logger';
import { describeWithRedis, redisUrl, uniqueRedisPrefix, waitFor } from '../multi-instance/instances';

/** redis_up's value in a Prometheus text answer, or undefined when it is not there. */
function redisUp(metrics: string): number | undefined {
  const match = /^redis_up (\S+)$/m.exec(metrics);
  return match === null ? undefined : Number(match[1]);
}

/** A port nothing listens on (one just freed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP relay to the real Redis that the test can cut (as a network outage) and restore. */
async function relayTo(url: string) {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const open = async () => {
    const relay = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    // The same port again after a cut: the client reconnects to the address it was given.
    await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve));
    port = (relay.address() as { port: number }).port;
    server = relay;
  };
  const cut = async () => {
    const closed = new Promise((resolve) => server?.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await open();
  return { url: () => `redis://127.0.0.1:${port}`, cut, restore: open };
}

const target = testDatabases[0];

describe('Redis lost and regained, as the operator sees them', () => {
  let t: TestApp | undefined;
  let log: ReturnType<typeof memoryLogger>;

  async function start(url: string): Promise<TestApp> {
    log = memoryLogger();
    t = await createTestApp(target, {
      env: { REDIS_URL: url },
      overrides: { logger: log.logger, redisKeyPrefix: uniqueRedisPrefix() },
    });
    await t.container.get<RedisConnection>(APP.Redis).start();
    return t;
  }
  afterEach(async () => {
    await t?.container.get<RedisConnection>(APP.Redis).close();
    await t?.close();
    t = undefined;
  });

  const scrape = async (app: TestApp) => (await request(app.app).get('/metrics').expect(200)).text;
  const events = () => log.lines().filter((line) => String(line.event).startsWith('redis.'));

  it('has no redis_up where REDIS_URL is unset: Redis is not used, rather than down', async () => {
    const app = await createTestApp(target);
    try {
      expect(redisUp(await scrape(app))).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('says in one line that lockouts and rate limits count per instance, and shows redis_up 0, when Redis cannot be reached', async () => {
    const app = await start(`redis://127.0.0.1:${await closedPort()}`);
    await waitFor(() => events().length > 0, 5000);
    // Reconnection attempts go on; the line is not repeated for each.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(events()).toEqual([
      expect.objectContaining({
        level: 'warn',
        event: 'redis.lost',
        msg: 'Redis lost: sign-in lockouts and rate limits count per instance until it answers again',
      }),
    ]);
    expect(redisUp(await scrape(app))).toBe(0);
  });

  describeWithRedis('with a Redis to lose (TEST_REDIS_URL)', () => {
    it('tells the loss and the return once each, and redis_up follows: 1, 0, 1', async () => {
      const relay = await relayTo(redisUrl ?? '');
      const app = await start(relay.url());
      expect(redisUp(await scrape(app))).toBe(1);
      expect(events()).toEqual([]);

      await relay.cut();
      await waitFor(() => events().length === 1, 5000);
      expect(redisUp(await scrape(app))).toBe(0);

      await relay.restore();
      await waitFor(() => events().length === 2, 10_000);
      expect(events().map((line) => [line.level, line.event])).toEqual([
        ['warn', 'redis.lost'],
        ['info', 'redis.regained'],
      ]);
      expect(events()[1].msg).toBe(
        'Redis regained: sign-in lockouts and rate limits are shared between instances again',
      );
      expect(redisUp(await scrape(app))).toBe(1);
      await relay.cut();
    });
  });
});
