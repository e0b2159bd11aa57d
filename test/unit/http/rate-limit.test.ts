import { createHash } from 'node:crypto';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { errorHandler } from '../../../src/http/error-handler';
import { keyRateLimit } from '../../../src/http/rate-limit';
import type { RedisConnection } from '../../../src/infrastructure/rate-limit/redis-connection';
import { memoryLogger } from '../../support/memory-logger';

const LIMIT = 2;
const silent = pino({ level: 'silent' });

/** An app where the request's key id comes from a header, as bearerAuth would set it. */
function appWith(redis: RedisConnection | null = null, logger: pino.Logger = silent): express.Express {
  const app = express();
  app.use((req, res, next) => {
    res.locals.keyId = Number(req.get('X-Key'));
    next();
  });
  app.get('/', keyRateLimit({ limit: LIMIT, redis, logger }), (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler);
  return app;
}

/** IETF draft 8's partition key: the base64 of the first 12 hex digits of the key's SHA-256. */
const partitionKey = (key: string) =>
  Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');

describe('the per-key rate limit', () => {
  afterEach(() => jest.restoreAllMocks());

  it('tells each key its budget in the draft-8 headers, partition key included, request after request', async () => {
    const app = appWith();
    const policy = (key: string) => `"2-in-1min"; q=2; w=60; pk=:${partitionKey(`key:${key}`)}:`;

    const first = await request(app).get('/').set('X-Key', '7').expect(200);
    expect(first.headers.ratelimit).toMatch(/^"2-in-1min"; r=1; t=(60|59)$/);
    expect(first.headers['ratelimit-policy']).toBe(policy('7'));
    const second = await request(app).get('/').set('X-Key', '7').expect(200);
    expect(second.headers.ratelimit).toMatch(/^"2-in-1min"; r=0; t=\d+$/);
    const other = await request(app).get('/').set('X-Key', '12').expect(200);
    expect(other.headers.ratelimit).toMatch(/^"2-in-1min"; r=1; t=(60|59)$/);
    expect(other.headers['ratelimit-policy']).toBe(policy('12'));
  });

  it('answers the request over the limit with the Error body, Retry-After and the headers', async () => {
    const app = appWith();
    await request(app).get('/').set('X-Key', '3').expect(200);
    await request(app).get('/').set('X-Key', '3').expect(200);

    const refused = await request(app).get('/').set('X-Key', '3').expect(429);

    const seconds = Number(refused.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(59);
    expect(refused.body).toEqual({
      errors: [`rate limit exceeded: 2 requests a minute per key; retry after ${seconds} s`],
    });
    expect(refused.headers.ratelimit).toMatch(/^"2-in-1min"; r=0; t=\d+$/);
  });

  it("starts a key's window at its first request and a new one once it is over", async () => {
    const app = appWith();
    const start = Date.now();
    const now = jest.spyOn(Date, 'now').mockReturnValue(start);
    await request(app).get('/').set('X-Key', '5').expect(200);
    now.mockReturnValue(start + 30_000);
    await request(app).get('/').set('X-Key', '5').expect(200);
    const refused = await request(app).get('/').set('X-Key', '5').expect(429);
    expect(refused.headers['retry-after']).toBe('30');

    now.mockReturnValue(start + 60_000);
    const again = await request(app).get('/').set('X-Key', '5').expect(200);
    expect(again.headers.ratelimit).toBe('"2-in-1min"; r=1; t=60');
  });

  it('counts in Redis through rate-limit-redis, and fails open when Redis fails, logging it once a minute', async () => {
    const counts = new Map<string, number>();
    let down = false;
    // The commands rate-limit-redis sends: SCRIPT LOAD, then EVALSHA of its increment script.
    const redis = {
      keyPrefix: 'test:',
      sendCommand: async (args: string[]) => {
        if (down) throw new Error('down');
        if (args[0] === 'SCRIPT') return 'sha';
        const key = args[3];
        counts.set(key, (counts.get(key) ?? 0) + 1);
        return [counts.get(key), 60_000];
      },
    } as unknown as RedisConnection;
    const log = memoryLogger();
    const app = appWith(redis, log.logger);
    await request(app).get('/').set('X-Key', '1').expect(200);
    await request(app).get('/').set('X-Key', '1').expect(200);
    await request(app).get('/').set('X-Key', '1').expect(429);
    expect(counts.get('test:rate:key:1')).toBe(3);

    expect(log.lines()).toEqual([]);

    down = true;
    await request(app).get('/').set('X-Key', '1').expect(200);
    await request(app).get('/').set('X-Key', '1').expect(200);
    expect(log.lines()).toEqual([
      expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^rate limit not counted: /) }),
    ]);
  });
});
