import type { Request, RequestHandler, Response } from 'express';
import { type RateLimitInfo, rateLimit, type Logger as StoreLogger } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { RedisReply } from 'rate-limit-redis';
import { RecoveringRedisStore } from '../infrastructure/rate-limit/recovering-redis-store';
import type { RedisConnection } from '../infrastructure/rate-limit/redis-connection';
import { HttpError } from './http-error';

const WINDOW_MS = 60_000;
// During a Redis outage every request would report the failure; once a minute says enough.
const LOG_INTERVAL_MS = 60_000;

function keyIdOf(res: Response): number {
  const keyId = res.locals.keyId as number | undefined;
  if (keyId === undefined) throw new Error('bearerAuth must run before the rate limit');
  return keyId;
}

/** Seconds until the key's window starts again: what Retry-After and the 429's message say. */
function retryAfterSeconds(req: Request): number {
  const { resetTime } = (req as Request & { rateLimit: RateLimitInfo }).rateLimit;
  return resetTime === undefined
    ? WINDOW_MS / 1000
    : Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000));
}

/** Store failures are logged, not answered (the limit fails open), and at most once a minute. */
function storeLogger(logger: Logger): StoreLogger {
  let lastLoggedAt = Number.NEGATIVE_INFINITY;
  const log = (error: unknown, message?: string) => {
    const now = Date.now();
    if (now - lastLoggedAt < LOG_INTERVAL_MS) return;
    lastLoggedAt = now;
    logger.warn({ err: error }, `rate limit not counted: ${message ?? 'the store failed'}`);
  };
  return { warn: log, error: log };
}

export interface KeyRateLimitOptions {
  /** Requests a key may make in a one-minute window (RATE_LIMIT_PER_MINUTE). */
  limit: number;
  /** Where the counts are kept: Redis, shared by every instance, or this process when null. */
  redis: RedisConnection | null;
  logger: Logger;
}

/**
 * The per-key rate limit, to run right after bearer authentication: `limit` requests in a fixed
 * one-minute window per key, from its first request, by express-rate-limit with its IETF draft 8
 * headers (`RateLimit` and `RateLimit-Policy`, plus Retry-After on a 429). One per app, so that
 * every route counts against the same budget of a key; with Redis (rate-limit-redis) every
 * instance counts together. The 429 is the error handler's, with the Error body.
 */
export function keyRateLimit({ limit, redis, logger }: KeyRateLimitOptions): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (_req, res) => `key:${keyIdOf(res)}`,
    retryAfter: retryAfterSeconds,
    handler: (req, _res, next) => {
      const seconds = String(retryAfterSeconds(req));
      next(
        new HttpError(
          429,
          `rate limit exceeded: ${limit} requests a minute per key; retry after ${seconds} s`,
          {
            'Retry-After': seconds,
          },
        ),
      );
    },
    // Without Redis the limit counts in this process (express-rate-limit's MemoryStore).
    store:
      redis === null
        ? undefined
        : new RecoveringRedisStore({
            sendCommand: (...args: string[]) => redis.sendCommand(args) as Promise<RedisReply>,
            prefix: `${redis.keyPrefix}rate:`,
          }),
    passOnStoreError: true,
    logger: storeLogger(logger),
  });
}
