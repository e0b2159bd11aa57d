import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../application/ports/clock';
import type { LoginThrottle } from '../../application/ports/login-throttle';
import type { RedisCommands } from '../rate-limit/redis-connection';

export interface RedisLoginThrottleOptions {
  /** Every key starts with it. */
  keyPrefix: string;
  /** Counts too, always, and answers whenever Redis cannot: the rule then holds per instance. */
  fallback: LoginThrottle;
  logger?: Logger;
  limit?: number;
  windowMs?: number;
}

// One atomic step per failure: drop what left the window, add this failure, keep only the latest
// `limit` (older ones can no longer decide anything), and let Redis forget the set a window after
// its newest failure. ARGV[4], the member, is "<time>:<uuid>": unique, and it carries the time.
const RECORD_FAILURE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
for _, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('ZREMRANGEBYRANK', key, 0, -(limit + 1))
  redis.call('PEXPIRE', key, window)
end
return 0`;

// Errors are logged at most this often: during an outage every login would report one.
const LOG_INTERVAL_MS = 60_000;

/**
 * The rule of InMemoryLoginThrottle, kept in Redis so that every instance counts the same
 * failures: a sliding log per subject (a sorted set of failure times, scored in milliseconds); a
 * subject with `limit` failures inside the window is blocked until the oldest of those leaves it.
 * Same cut-off (a failure exactly one window old no longer counts), same rounding up to whole
 * seconds. Times come from the injected clock, so instances should keep their clocks in step.
 * Subjects are stored hashed: usernames stay out of Redis and keys stay short whatever was typed.
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

  async blockedFor(subjects: string[]): Promise<number> {
    const now = this.clock.now().getTime();
    const cutoff = now - this.windowMs;
    try {
      const waits = await Promise.all(
        subjects.map(async (subject) => {
          const reply = await this.redis.sendCommand([
            'ZRANGEBYSCORE',
            this.key(subject),
            `(${cutoff}`,
            '+inf',
          ]);
          const times = failureTimes(reply);
          if (times.length < this.limit) return 0;
          const releasedAt = times[times.length - this.limit] + this.windowMs;
          return Math.ceil((releasedAt - now) / 1000);
        }),
      );
      return Math.max(0, ...waits);
    } catch (error) {
      this.report(error);
      return this.options.fallback.blockedFor(subjects);
    }
  }

  async recordFailure(subjects: string[]): Promise<void> {
    await this.options.fallback.recordFailure(subjects);
    const now = this.clock.now().getTime();
    try {
      await this.redis.sendCommand([
        'EVAL',
        RECORD_FAILURE,
        String(subjects.length),
        ...subjects.map((subject) => this.key(subject)),
        String(now),
        String(this.windowMs),
        String(this.limit),
        `${now}:${randomUUID()}`,
      ]);
    } catch (error) {
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

/**
 * The times of the members listed, ascending. Each member starts with its failure's time (its
 * score too), read from the member so as not to depend on how the protocol version shapes scores.
 */
function failureTimes(reply: unknown): number[] {
  if (!Array.isArray(reply)) throw new Error('unexpected reply from Redis');
  return reply.map((member) => Number(String(member).split(':', 1)[0]));
}
