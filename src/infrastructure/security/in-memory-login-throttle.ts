import type { Clock } from '../../application/ports/clock';
import type { LoginThrottle } from '../../application/ports/login-throttle';

export interface LoginThrottleOptions {
  /** Failures within the window that block a subject. */
  limit?: number;
  windowMs?: number;
  /** Most subjects remembered; beyond it the longest-remembered are forgotten first. */
  maxSubjects?: number;
}

/**
 * A sliding log per subject: the times of its latest failures. A subject with `limit` failures
 * inside the window is blocked until the oldest of those leaves the window, so after the 10th
 * failure even the right password waits out the full window. Only the latest `limit` times are
 * kept, and subjects with nothing inside the window are swept, so memory stays bounded.
 *
 * Per process: several instances each count on their own (a shared store would be needed to
 * count across them).
 */
export class InMemoryLoginThrottle implements LoginThrottle {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxSubjects: number;
  private readonly failures = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    options: LoginThrottleOptions = {},
  ) {
    this.limit = options.limit ?? 10;
    this.windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.maxSubjects = options.maxSubjects ?? 100_000;
  }

  async blockedFor(subjects: string[]): Promise<number> {
    const now = this.clock.now().getTime();
    let longest = 0;
    for (const subject of subjects) {
      const times = this.recent(subject, now);
      if (times.length >= this.limit) {
        const releasedAt = times[times.length - this.limit] + this.windowMs;
        longest = Math.max(longest, Math.ceil((releasedAt - now) / 1000));
      }
    }
    return longest;
  }

  async recordFailure(subjects: string[]): Promise<void> {
    const now = this.clock.now().getTime();
    this.sweep(now);
    for (const subject of subjects) {
      const times = this.recent(subject, now);
      times.push(now);
      if (times.length > this.limit) times.splice(0, times.length - this.limit);
      // Re-inserting moves the subject to the end, so the oldest-touched are evicted first.
      this.failures.delete(subject);
      this.failures.set(subject, times);
    }
    while (this.failures.size > this.maxSubjects) {
      const oldest = this.failures.keys().next().value as string;
      this.failures.delete(oldest);
    }
  }

  private recent(subject: string, now: number): number[] {
    const times = this.failures.get(subject) ?? [];
    const cutoff = now - this.windowMs;
    const kept = times.filter((t) => t > cutoff);
    if (kept.length === 0) this.failures.delete(subject);
    else if (kept.length !== times.length) this.failures.set(subject, kept);
    return kept;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const cutoff = now - this.windowMs;
    for (const [subject, times] of this.failures) {
      if (times[times.length - 1] <= cutoff) this.failures.delete(subject);
    }
  }
}
