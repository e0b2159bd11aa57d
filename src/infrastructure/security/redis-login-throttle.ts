import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../application/ports/clock';
import type { LoginThrottle, Reservation } from '../../application/ports/login-throttle';
import type { RedisCommands } from '../rate-limit/redis-connection';

export interface RedisLoginThrottleOptions {
  /** Every key starts with it. */
  keyPrefix: string;
  /**
   * Counts too, always, and decides alone whenever Redis cannot answer: the rule then holds per
   * instance. It names each attempt, and Redis stores the attempt under the same name.
   */
  fallback: LoginThrottle;
  logger?: Logger;
  limit?: number;
  windowMs?: number;
}

// One atomic step per reservation, so that concurrent sign-ins on every instance are counted one
// after another: drop what left the window from each subject; if any subject still holds `limit`
// attempts, answer the milliseconds until its oldest counted one leaves the window and count
// nothing; otherwise add this attempt (ARGV[4], "<time>:<uuid>") to every subject, let Redis
// forget a subject a window after its newest attempt, and answer the (1-based) positions of the
// subjects it brought to the limit, as a list (empty when none).
const RESERVE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local wait = 0
for _, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + window - now)
  end
end
if wait > 0 then return wait end
local filled = {}
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, window)
  if redis.call('ZCARD', key) >= limit then table.insert(filled, i) end
end
return filled`;

const RELEASE = `
for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
return 0`;

// Errors are logged at most this often: during an outage every login would report one.
const LOG_INTERVAL_MS = 60_000;

/**
 * The rule of InMemoryLoginThrottle, kept in Redis so that every instance counts the same
 * attempts: a sliding log per subject (a sorted set of attempts, scored by their time in
 * milliseconds); a subject with `limit` attempts inside the window is refused until the oldest of
 * them leaves it. Same cut-off (an attempt exactly one window old no longer counts), same rounding
 * up to whole seconds. Times come from the injected clock, so instances should keep their clocks in
 * step. Subjects are stored hashed: usernames stay out of Redis and keys stay short whatever was
 * typed.
 */
export class RedisLoginThrottle implements LoginThrottle {
  private readonly limit: number;
  private readonly windowMs: number;
  private lastLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly redis: RedisCommands,
    private readonly clock: Clock,
    private readonly options: RedisLoginThrottleOptions,
  ) {
    this.limit = options.limit ?? 10;
    this.windowMs = options.windowMs ?? 15 * 60 * 1000;
  }

  async reserve(subjects: string[]): Promise<Reservation> {
    // This instance's own count first: it holds no more than Redis does, so a refusal here is
    // Redis's answer too, and a grant names the attempt for both.
    const local = await this.options.fallback.reserve(subjects);
    if (!local.granted) return local;
    const now = this.clock.now().getTime();
    let reply: unknown;
    try {
      reply = await this.redis.sendCommand([
        'EVAL',
        RESERVE,
        String(subjects.length),
        ...subjects.map((subject) => this.key(subject)),
        String(now),
        String(this.windowMs),
        String(this.limit),
        local.attempt,
      ]);
    } catch (error) {
      this.report(error);
      return local;
    }
    // Granted: Redis, which counts every instance's attempts, says which subjects are now full.
    if (Array.isArray(reply)) {
      return { ...local, filled: reply.map((position) => subjects[Number(position) - 1]) };
    }
    await this.options.fallback.release(subjects, local.attempt);
    return { granted: false, retryAfterSeconds: Math.ceil(Number(reply) / 1000) };
  }

  async release(subjects: string[], attempt: string): Promise<void> {
    await this.options.fallback.release(subjects, attempt);
    try {
      await this.redis.sendCommand([
        'EVAL',
        RELEASE,
        String(subjects.length),
        ...subjects.map((subject) => this.key(subject)),
        attempt,
      ]);
    } catch (error) {
      // The attempt stays counted in Redis until it leaves the window: the safe side.
      this.report(error);
    }
  }

  private key(subject: string): string {
    const digest = createHash('sha256').update(subject, 'utf8').digest('base64url');
    return `${this.options.keyPrefix}login:${digest}`;
  }

  private report(error: unknown): void {
    const now = Date.now();
    if (now - this.lastLoggedAt < LOG_INTERVAL_MS) return;
    this.lastLoggedAt = now;
    this.options.logger?.warn({ err: error }, 'login throttle: Redis failed; counting in this instance');
  }
}
