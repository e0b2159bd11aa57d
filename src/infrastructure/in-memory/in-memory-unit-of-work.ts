import type { PersonUpdate, Transaction, UnitOfWork } from '../../application/ports/unit-of-work';
import { isVisible, type Person } from '../../domain/person';
import type { InMemoryChangeLog } from './in-memory-change-log';
import type { InMemoryStore } from './in-memory-store';

/**
 * Units run one after another (a promise chain), which stands in for the database's locks; a
 * unit that throws is undone by restoring the snapshot taken when it began.
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  private queue: Promise<unknown> = Promise.resolve();

  /** `changes`: the transaction's change log, written when a unit succeeds (see InMemoryChangeLog). */
  constructor(
    private readonly store: InMemoryStore,
    private readonly transaction: Transaction,
    private readonly changes?: InMemoryChangeLog,
  ) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const result = this.queue.then(() => this.runNow(work));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** A unit of its own: the checks and the writes run with no other unit in between. */
  commitPersonUpdate({ id, version, changes, audit, change }: PersonUpdate): Promise<Person | null> {
    return this.run(async (tx) => {
      const current = await tx.people.findById(id);
      if (current === null || !isVisible(current) || current.version !== version) return null;
      await tx.people.update(id, changes);
      await tx.audit.record(audit);
      await tx.changes.record([change]);
      return tx.people.findById(id);
    });
  }

  private async runNow<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const snapshot = this.store.snapshot();
    try {
      const result = await work(this.transaction);
      this.changes?.end(true);
      return result;
    } catch (error) {
      this.changes?.end(false);
      this.store.restore(snapshot);
      throw error;
    }
  }
}
