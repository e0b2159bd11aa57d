/**
 * Rows handed from a driver's events to a reader: each read takes every row that came in since
 * the last one (what one read of the socket parsed, as the driver emits a chunk's rows in one go),
 * and waits only when none is there. Rows keep coming in whether or not anyone reads: the reader
 * may stop early, and what it leaves is dropped.
 */
export class RowBatches<T> implements AsyncIterable<T[]> {
  private rows: T[] = [];
  private finished = false;
  private failure: { error: Error } | null = null;
  private wake: (() => void) | null = null;
  private abandoned = false;

  add(row: T): void {
    if (this.abandoned) return;
    this.rows.push(row);
    this.wakeReader();
  }

  end(): void {
    this.finished = true;
    this.wakeReader();
  }

  fail(error: Error): void {
    this.failure = { error };
    this.finished = true;
    this.wakeReader();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T[]> {
    try {
      for (;;) {
        if (this.failure !== null) throw this.failure.error;
        if (this.rows.length > 0) {
          const batch = this.rows;
          this.rows = [];
          yield batch;
        } else if (this.finished) {
          return;
        } else {
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
        }
      }
    } finally {
      this.abandoned = true;
      this.rows = [];
    }
  }

  private wakeReader(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
