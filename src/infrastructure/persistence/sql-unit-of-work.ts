import type { DataSource } from 'typeorm';
import type { PersonUpdate, RunOptions, Transaction, UnitOfWork } from '../../application/ports/unit-of-work';
import type { Person } from '../../domain/person';
import { withDatabaseErrors } from './database-errors';
import { type BackgroundErasurePurge, purgeErasedValues } from './sql-erasure-purge';
import { PersonUpdateWriter } from './person-update-sql';
import { createRepositories } from './repositories';

export interface SqlUnitOfWorkOptions {
  /**
   * Draw the changes' seq under the change log's lock (see SqlChangeLog). Always on; the
   * never-skip test turns it off once to show that it then fails.
   */
  serialiseChanges?: boolean;
  /** Where purges asked for `in-background` go; without one, every purge is waited for. */
  background?: BackgroundErasurePurge;
}

export class SqlUnitOfWork implements UnitOfWork {
  private readonly updates: PersonUpdateWriter;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: SqlUnitOfWorkOptions = {},
  ) {
    this.updates = new PersonUpdateWriter(dataSource.manager, options.serialiseChanges !== false);
  }

  /**
   * Errors thrown by `work` come out unchanged; failures to begin or commit are translated. A unit
   * that erased people returns once what held their values has been rewritten (SPEC §8), or, asked
   * to, hands that to the background: it cannot run inside a transaction, so it follows the commit
   * (see sql-erasure-purge.ts).
   */
  async run<T>(work: (tx: Transaction) => Promise<T>, options: RunOptions = {}): Promise<T> {
    let erased = false;
    const result = await withDatabaseErrors(() =>
      this.dataSource.transaction(async (manager) => {
        const tx = createRepositories(manager, {
          changesAtCommit: true,
          onErase: () => {
            erased = true;
          },
        });
        const value = await work(tx);
        // The last statement before COMMIT: the change log's lock is held as briefly as possible.
        await tx.changes.flush({ serialise: this.options.serialiseChanges });
        return value;
      }),
    );
    if (!erased) return result;
    const background = this.options.background;
    if (options.purge === 'in-background' && background !== undefined) background.request();
    else await withDatabaseErrors(() => purgeErasedValues(this.dataSource));
    return result;
  }

  /** One statement, committed on its own with the updates that come meanwhile (see person-update-sql.ts). */
  commitPersonUpdate(update: PersonUpdate): Promise<Person | null> {
    return this.updates.write(update);
  }
}
