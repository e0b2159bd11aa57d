import { translateDatabaseError } from './database-errors';

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions<T> {
  /** Items written by one statement at most. */
  maxBatch: number;
  /** The order of the items in a statement: statements that lock several rows lock them in one order. */
  order: (a: T, b: T) => number;
}

/**
 * Writes items as they come, one statement at a time: the items that arrive while a statement
 * runs go together in the next one (a group commit). Under load an item then costs the database
 * a share of one statement and one COMMIT rather than its own. An item that fails a statement is
 * not allowed to fail the others with it: when a statement of several fails, each of them is
 * written again on its own.
 */
export class GroupCommit<T, R> {
  private readonly waiting: Waiting<T, R>[] = [];
  private writing = false;

  /** `writeMany` answers one result per item, in the items' order. */
  constructor(
    private readonly writeMany: (items: T[]) => Promise<R[]>,
    private readonly options: GroupCommitOptions<T>,
  ) {}

  write(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting
          .splice(0, this.options.maxBatch)
          .sort((a, b) => this.options.order(a.item, b.item));
        await this.writeBatch(batch);
      }
    } finally {
      this.writing = false;
    }
  }

  private async writeBatch(batch: Waiting<T, R>[]): Promise<void> {
    try {
      const results = await this.writeMany(batch.map((w) => w.item));
      for (const [i, w] of batch.entries()) w.resolve(results[i]);
    } catch (error) {
      if (batch.length === 1) {
        batch[0].reject(translateDatabaseError(error));
        return;
      }
      await Promise.all(
        batch.map((w) =>
          this.writeMany([w.item]).then(
            ([result]) => w.resolve(result),
            (alone: unknown) => w.reject(translateDatabaseError(alone)),
          ),
        ),
      );
    }
  }
}
