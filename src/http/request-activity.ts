import type { RequestHandler } from 'express';

/**
 * Requests being served, and when one last arrived or ended: bulk work gives way while others
 * are about. The moment counts as well as the number, because on PGlite every queued query runs
 * in one go: when a stream's batch ends, the requests waiting behind it have all been answered,
 * and the next ones are not even read yet.
 */
export class RequestActivity {
  private count = 0;
  private lastChange = Number.NEGATIVE_INFINITY;

  readonly middleware: RequestHandler = (_req, res, next) => {
    this.count += 1;
    this.lastChange = performance.now();
    res.once('close', () => {
      this.count -= 1;
      this.lastChange = performance.now();
    });
    next();
  };

  /** Requests arrived and not yet answered. */
  get inFlight(): number {
    return this.count;
  }

  /** Milliseconds since a request last arrived or ended. */
  quietFor(): number {
    return performance.now() - this.lastChange;
  }
}
