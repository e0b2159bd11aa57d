import { randomUUID } from 'node:crypto';
import type { Clock } from '../../application/ports/clock';
import type { LoginThrottle, Reservation } from '../../application/ports/login-throttle';

export interface LoginThrottleOptions {
  /** Attempts within the window that block a subject. */
  limit?: number;
  windowMs?: number;
  /** Most subjects remembered; beyond it the longest-remembered are forgotten first. */
  maxSubjects?: number;
}

/** One counted attempt: when, and the name it is released by. */
interface Attempt {
  at: number;
  id: string;
}

/**
 * A sliding log per subject: its attempts counted inside the window (every failure, and the
 * attempts whose password is still being checked). A subject with `limit` of them is refused until
 * the oldest leaves the window, so after the 10th failure even the right password waits out the
 * full window. A reservation checks and counts in one synchronous step, so concurrent sign-ins
 * cannot all slip in before the first is counted. At most `limit` attempts are ever kept per
 * subject, and subjects with nothing inside the window are swept, so memory stays bounded.
 *
 * Per process: several instances each count on their own (RedisLoginThrottle counts across them).
 */
export class InMemoryLoginThrottle implements LoginThrottle {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxSubjects: number;
  private readonly attempts = new Map<string, Attempt[]>();
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    options: LoginThrottleOptions = {},
  ) {
    this.limit = options.limit ?? 10;
    this.windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.maxSubjects = options.maxSubjects ?? 100_000;
  }

  async reserve(subjects: string[]): Promise<Reservation> {
    const now = this.clock.now().getTime();
    this.sweep(now);
    let wait = 0;
    for (const subject of subjects) {
      const kept = this.recent(subject, now);
      if (kept.length >= this.limit) {
        const releasedAt = kept[kept.length - this.limit].at + this.windowMs;
        wait = Math.max(wait, Math.ceil((releasedAt - now) / 1000));
      }
    }
    if (wait > 0) return { granted: false, retryAfterSeconds: wait };

    const id = `${now}:${randomUUID()}`;
    const filled: string[] = [];
    for (const subject of subjects) {
      // Re-inserting moves the subject to the end, so the oldest-touched are evicted first.
      const kept = [...this.recent(subject, now), { at: now, id }];
      this.attempts.delete(subject);
      this.attempts.set(subject, kept);
      if (kept.length >= this.limit) filled.push(subject);
    }
    while (this.attempts.size > this.maxSubjects) {
      const oldest = this.attempts.keys().next().value as string;
      this.attempts.delete(oldest);
    }
    return { granted: true, attempt: id, filled };
  }

  async release(subjects: string[], attempt: string): Promise<void> {
    for (const subject of subjects) {
      const kept = (this.attempts.get(subject) ?? []).filter((counted) => counted.id !== attempt);
      if (kept.length === 0) this.attempts.delete(subject);
      else this.attempts.set(subject, kept);
    }
  }

  private recent(subject: string, now: number): Attempt[] {
    const all = this.attempts.get(subject) ?? [];
    const cutoff = now - this.windowMs;
    const kept = all.filter((counted) => counted.at > cutoff);
    if (kept.length === 0) this.attempts.delete(subject);
    else if (kept.length !== all.length) this.attempts.set(subject, kept);
    return kept;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const cutoff = now - this.windowMs;
    for (const [subject, kept] of this.attempts) {
      if (kept[kept.length - 1].at <= cutoff) this.attempts.delete(subject);
    }
  }
}
