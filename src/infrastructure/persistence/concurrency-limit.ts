export interface ConcurrencyLimitOptions {
  /**
   * Asked as each task ends: while it says others are waiting for what the tasks use, the place
   * stays taken for restRatio times as long as the task took. Those others then get at least
   * restRatio / (1 + restRatio) of the time.
   */
  restWhile?: () => boolean;
  /** How many times as long as the task a rest lasts (default 1). */
  restRatio?: number;
}

/** Runs at most `limit` tasks at once; the others wait their turn, first come first served. */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly options: ConcurrencyLimitOptions = {},
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running += 1;
    // The place is handed over by the task that ends, so a newcomer cannot take it first.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    const started = performance.now();
    try {
      return await task();
    } finally {
      const took = performance.now() - started;
      if (this.options.restWhile === undefined) this.release();
      // The task's result goes back at once; the place is kept a while. The question is asked
      // after a turn of the event loop: requests that arrived meanwhile are read by then.
      else setImmediate(() => this.restThenRelease(took));
    }
  }

  private restThenRelease(took: number): void {
    if (this.options.restWhile?.()) setTimeout(() => this.release(), took * (this.options.restRatio ?? 1));
    else this.release();
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.running -= 1;
    else next();
  }
}
