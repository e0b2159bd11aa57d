import type { Logger } from 'pino';

/**
 * Runs `work` at once and then every `intervalMs`, one run at a time: the next run is scheduled
 * only when the last one has finished. A failed run (the database away) is logged and tried again
 * at the next tick; the job never ends the process. The timer does not keep the process alive.
 */
export class RepeatingJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.tick();
  }

  /** Stops the timer and waits for a run in progress to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private tick(): void {
    this.timer = null;
    this.running = this.work().then(
      () => undefined,
      (error: unknown) =>
        this.logger.warn({ err: error, job: this.name }, 'a background job failed; it runs again later'),
    );
    void this.running.then(() => {
      this.running = null;
      if (this.stopped) return;
      this.timer = setTimeout(() => this.tick(), this.intervalMs);
      this.timer.unref();
    });
  }
}
