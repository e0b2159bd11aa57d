import type { RequestHandler, Response } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { HttpError } from './http-error';

const WINDOW_MS = 60_000;
// During a Redis outage every request would report the failure; once a minute says enough.
const LOG_INTERVAL_MS = 60_000;

function retryAfterSeconds(resetTime: Date | undefined): number {
  if (resetTime === undefined) return Math.ceil(WINDOW_MS / 1000);
  return Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000));
}

function keyIdOf(res: Response): number {
  const keyId = res.locals.keyId as number | undefined;
  if (keyId === undefined) throw new Error('bearerAuth must run before the rate limit');
  return keyId;
}

/** Store failures are logged, not answered: the limit fails open rather than failing requests. */
function storeLogger(logger: Logger) {
  let lastLoggedAt = Number.NEGATIVE_INFINITY;
  const log = (error: unknown, message?: string) => {
    const now = Date.now();
    if (now - lastLoggedAt < LOG_INTERVAL_MS) return;
    lastLoggedAt = now;
    logger.warn({ err: error }, `rate limit not counted: ${message ?? 'store failed'}`);
  };
  return { error: log, warn: log };
}

export interface KeyRateLimitOptions {
  /** Requests a key may make in a one-minute window (RATE_LIMIT_PER_MINUTE). */
  limit: number;
  /** Where the counts are kept: shared by every instance (Redis), or this process when undefined. */
  store?: Store;
  logger: Logger;
}

/**
 * The per-key rate limit, to run right after bearer authentication: `limit` requests in a fixed
 * one-minute window per key. The container builds one, so that every route counts against the
 * same budget of a key.
 */
export function keyRateLimit({ limit, store, logger }: KeyRateLimitOptions): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit,
    // IETF draft 8: `RateLimit` and `RateLimit-Policy`, plus Retry-After on a 429.
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (_req, res) => `key:${keyIdOf(res)}`,
    retryAfter: (req) =>
      retryAfterSeconds((req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime),
    handler: (_req, res, next) => {
      const seconds = String(res.getHeader('Retry-After') ?? Math.ceil(WINDOW_MS / 1000));
      next(
        new HttpError(
          429,
          `rate limit exceeded: ${limit} requests a minute per key; retry after ${seconds} s`,
          { 'Retry-After': seconds },
        ),
      );
    },
    store,
    passOnStoreError: true,
    logger: storeLogger(logger),
  });
}
