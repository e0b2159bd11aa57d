import express, { type RequestHandler } from 'express';
import { MemoryStore, rateLimit } from 'express-rate-limit';
import pino from 'pino';
import request from 'supertest';
import { errorHandler } from '../../../src/http/error-handler';
import { InProcessCounts, keyRateLimitIn } from '../../../src/http/rate-limit';

const LIMIT = 2;

/** An app where the request's key id comes from a header, as bearerAuth would set it. */
function appWith(limiter: RequestHandler): express.Express {
  const app = express();
  app.use((req, res, next) => {
    res.locals.keyId = Number(req.get('X-Key'));
    next();
  });
  app.get('/', limiter, (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler);
  return app;
}

describe('the per-key rate limit', () => {
  it("sends express-rate-limit's draft-8 headers, partition key included, request after request", async () => {
    const ours = appWith(keyRateLimitIn({ limit: LIMIT, logger: pino({ level: 'silent' }) }));
    const reference = appWith(
      rateLimit({
        windowMs: 60_000,
        limit: LIMIT,
        standardHeaders: 'draft-8',
        legacyHeaders: false,
        keyGenerator: (_req, res) => `key:${res.locals.keyId}`,
        handler: (_req, res) => {
          res.status(429).end();
        },
      }),
    );
    for (const key of ['7', '7', '7', '12']) {
      const [a, b] = await Promise.all([
        request(ours).get('/').set('X-Key', key),
        request(reference).get('/').set('X-Key', key),
      ]);
      expect(a.status).toBe(b.status);
      expect(a.headers['ratelimit-policy']).toBe(b.headers['ratelimit-policy']);
      // The seconds left may differ by one if the two requests straddle a second.
      const [ourRemaining, ourSeconds] = /r=(\d+); t=(\d+)$/.exec(a.headers.ratelimit)?.slice(1) ?? [];
      const [theirRemaining, theirSeconds] = /r=(\d+); t=(\d+)$/.exec(b.headers.ratelimit)?.slice(1) ?? [];
      expect(a.headers.ratelimit.split(';')[0]).toBe(b.headers.ratelimit.split(';')[0]);
      expect(ourRemaining).toBe(theirRemaining);
      expect(Math.abs(Number(ourSeconds) - Number(theirSeconds))).toBeLessThanOrEqual(1);
    }
  });

  it('counts through a shared store as express-rate-limit does, and fails open when it fails', async () => {
    const store = new MemoryStore();
    const app = appWith(keyRateLimitIn({ limit: LIMIT, store, logger: pino({ level: 'silent' }) }));
    await request(app).get('/').set('X-Key', '1').expect(200);
    await request(app).get('/').set('X-Key', '1').expect(200);
    const refused = await request(app).get('/').set('X-Key', '1').expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect((await store.get('key:1'))?.totalHits).toBe(3);

    store.increment = () => Promise.reject(new Error('down'));
    await request(app).get('/').set('X-Key', '1').expect(200);
    store.shutdown();
  });

  it("starts a key's window at its first request and a new one once it is over", () => {
    const counts = new InProcessCounts();
    expect(counts.increment('a', 1000)).toEqual({ hits: 1, resetAt: 61_000 });
    expect(counts.increment('a', 30_000)).toEqual({ hits: 2, resetAt: 61_000 });
    expect(counts.increment('b', 30_000)).toEqual({ hits: 1, resetAt: 90_000 });
    expect(counts.increment('a', 61_000)).toEqual({ hits: 1, resetAt: 121_000 });
  });
});
