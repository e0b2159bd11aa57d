import type { DataSource } from 'typeorm';
import type { PersonUpdate, Transaction, UnitOfWork } from '../../application/ports/unit-of-work';
import type { Person } from '../../domain/person';
import { withDatabaseErrors } from './database-errors';
import { updatePersonInOneStatement } from './person-update-sql';
import { createRepositories } from './repositories';

export interface TypeOrmUnitOfWorkOptions {
  /**
   * Draw the changes' seq under the change log's lock (see TypeOrmChangeLog). Always on; the
   * never-skip test turns it off once to show that it then fails.
   */
  serialiseChanges?: boolean;
}

export class TypeOrmUnitOfWork implements UnitOfWork {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: TypeOrmUnitOfWorkOptions = {},
  ) {}

  /** Errors thrown by `work` come out unchanged; failures to begin or commit are translated. */
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return withDatabaseErrors(() =>
      this.dataSource.transaction(async (manager) => {
        const tx = createRepositories(manager, { changesAtCommit: true });
        const result = await work(tx);
        // The last statement before COMMIT: the change log's lock is held as briefly as possible.
        await tx.changes.flush({ serialise: this.options.serialiseChanges });
        return result;
      }),
    );
  }

  /** One statement on its own, committed as it ends (see person-update-sql.ts). */
  updatePerson(update: PersonUpdate): Promise<Person | null> {
    return withDatabaseErrors(() =>
      updatePersonInOneStatement(this.dataSource.manager, update, this.options.serialiseChanges !== false),
    );
  }
}
