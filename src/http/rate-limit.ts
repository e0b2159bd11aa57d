import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Options, Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { RedisReply } from 'rate-limit-redis';
import { RecoveringRedisStore } from '../infrastructure/rate-limit/recovering-redis-store';
import type { RedisConnection } from '../infrastructure/rate-limit/redis-connection';
import { HttpError } from './http-error';

const WINDOW_MS = 60_000;
const WINDOW_SECONDS = WINDOW_MS / 1000;
// During a Redis outage every request would report the failure; once a minute says enough.
const LOG_INTERVAL_MS = 60_000;
/** Partition keys remembered; past this many (keys seen by this process), the memory starts over. */
const MAX_REMEMBERED_KEYS = 10_000;

function keyIdOf(res: Response): number {
  const keyId = res.locals.keyId as number | undefined;
  if (keyId === undefined) throw new Error('bearerAuth must run before the rate limit');
  return keyId;
}

/** Store failures are logged, not answered: the limit fails open rather than failing requests. */
function storeFailureLogger(logger: Logger): (error: unknown, what: string) => void {
  let lastLoggedAt = Number.NEGATIVE_INFINITY;
  return (error, what) => {
    const now = Date.now();
    if (now - lastLoggedAt < LOG_INTERVAL_MS) return;
    lastLoggedAt = now;
    logger.warn({ err: error }, `rate limit not counted: ${what}`);
  };
}

/**
 * The counts of this process: a fixed window per key, from its first request, as
 * express-rate-limit's MemoryStore keeps them, but counted synchronously (no promise a request).
 * Windows long over are swept once a window, so keys no longer used do not stay.
 */
export class InProcessCounts {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  private sweepAt = 0;

  increment(key: string, now: number): { hits: number; resetAt: number } {
    if (now >= this.sweepAt) {
      for (const [k, window] of this.windows) if (window.resetAt <= now) this.windows.delete(k);
      this.sweepAt = now + WINDOW_MS;
    }
    let window = this.windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { hits: 0, resetAt: now + WINDOW_MS };
      this.windows.set(key, window);
    }
    window.hits++;
    return window;
  }
}

/**
 * IETF draft 8's partition key, as express-rate-limit words it: the base64 of the first 12 hex
 * digits of the SHA-256 of the counted key (so the key itself is not shown).
 */
export function partitionKey(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex').slice(0, 12);
  return Buffer.from(hex).toString('base64');
}

export interface KeyRateLimitOptions {
  /** Requests a key may make in a one-minute window (RATE_LIMIT_PER_MINUTE). */
  limit: number;
  /** Where the counts are kept: Redis, shared by every instance, or this process when null. */
  redis: RedisConnection | null;
  logger: Logger;
}

/** rate-limit-redis, as an express-rate-limit Store, or undefined without Redis. */
function storeOf(redis: RedisConnection | null): Store | undefined {
  if (redis === null) return undefined;
  return new RecoveringRedisStore({
    sendCommand: (...args: string[]) => redis.sendCommand(args) as Promise<RedisReply>,
    prefix: `${redis.keyPrefix}rate:`,
  });
}

/**
 * The per-key rate limit, to run right after bearer authentication: `limit` requests in a fixed
 * one-minute window per key. The app builds one, so that every route counts against the
 * same budget of a key. Its headers are those of express-rate-limit with `standardHeaders:
 * 'draft-8'` (`RateLimit` and `RateLimit-Policy`, plus Retry-After on a 429), and a shared
 * store is one of its stores (rate-limit-redis): instances count together. In this process the
 * counting takes no promise, and the policy header, the same for every request of a key, is
 * worked out once per key: express-rate-limit hashed the key again on every request.
 */
export function keyRateLimit({ limit, redis, logger }: KeyRateLimitOptions): RequestHandler {
  return keyRateLimitIn({ limit, store: storeOf(redis), logger });
}

/** The same, counting in `store` (this process when undefined). */
export function keyRateLimitIn({
  limit,
  store,
  logger,
}: Omit<KeyRateLimitOptions, 'redis'> & { store?: Store }): RequestHandler {
  const name = `"${limit}-in-${WINDOW_SECONDS / 60}min"`;
  const policies = new Map<string, string>();
  const counts = store === undefined ? new InProcessCounts() : null;
  const storeFailed = storeFailureLogger(logger);
  // express-rate-limit hands its stores their window this way (rate-limit-redis reads windowMs and
  // loads its script, which fails while Redis is not connected yet: the increments load it again).
  try {
    const ready = store?.init?.({ windowMs: WINDOW_MS } as Options);
    if (ready instanceof Promise)
      ready.catch((error: unknown) => storeFailed(error, 'the store did not start'));
  } catch (error) {
    storeFailed(error, 'the store did not start');
  }

  const policyOf = (key: string): string => {
    let policy = policies.get(key);
    if (policy === undefined) {
      if (policies.size >= MAX_REMEMBERED_KEYS) policies.clear();
      policy = `${name}; q=${limit}; w=${WINDOW_SECONDS}; pk=:${partitionKey(key)}:`;
      policies.set(key, policy);
    }
    return policy;
  };

  const counted = (
    res: Response,
    next: NextFunction,
    key: string,
    hits: number,
    resetAt: number | undefined,
  ) => {
    const now = Date.now();
    if (!res.headersSent) {
      const reset = resetAt === undefined ? WINDOW_SECONDS : Math.max(0, Math.ceil((resetAt - now) / 1000));
      res.setHeader('RateLimit', `${name}; r=${Math.max(limit - hits, 0)}; t=${reset}`);
      res.setHeader('RateLimit-Policy', policyOf(key));
    }
    if (hits <= limit) {
      next();
      return;
    }
    const seconds = String(
      resetAt === undefined ? WINDOW_SECONDS : Math.max(1, Math.ceil((resetAt - now) / 1000)),
    );
    if (!res.headersSent) res.setHeader('Retry-After', seconds);
    next(
      new HttpError(
        429,
        `rate limit exceeded: ${limit} requests a minute per key; retry after ${seconds} s`,
        {
          'Retry-After': seconds,
        },
      ),
    );
  };

  return (_req: Request, res: Response, next: NextFunction) => {
    const key = `key:${keyIdOf(res)}`;
    if (counts !== null) {
      const { hits, resetAt } = counts.increment(key, Date.now());
      counted(res, next, key, hits, resetAt);
      return;
    }
    const shared = store as Store;
    return Promise.resolve()
      .then(() => shared.increment(key))
      .then(
        ({ totalHits, resetTime }) => counted(res, next, key, totalHits, resetTime?.getTime()),
        (error: unknown) => {
          storeFailed(error, 'the store failed');
          next();
        },
      );
  };
}
