import type { DataSource } from 'typeorm';
import type { Transaction, UnitOfWork } from '../../application/ports/unit-of-work';
import { withDatabaseErrors } from './database-errors';
import { createRepositories } from './repositories';

export class TypeOrmUnitOfWork implements UnitOfWork {
  constructor(private readonly dataSource: DataSource) {}

  /** Errors thrown by `work` come out unchanged; failures to begin or commit are translated. */
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return withDatabaseErrors(() =>
      this.dataSource.transaction((manager) => work(createRepositories(manager))),
    );
  }
}
