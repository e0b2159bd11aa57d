import { ConcurrencyLimit } from '../../src/infrastructure/persistence/concurrency-limit';
import { SqlChangeFeed } from '../../src/infrastructure/persistence/sql-change-feed';
import { createRepositories } from '../../src/infrastructure/persistence/repositories';
import { SqlUnitOfWork } from '../../src/infrastructure/persistence/sql-unit-of-work';
import { openTestDatabase, testDatabases } from '../support/databases';
import type { OpenAdapter } from './contract-adapter';

/**
 * The SQL adapters over a fresh migrated database (PGlite in memory, or a schema of its own on
 * PostgreSQL); null when the run leaves that database out (TEST_DATABASE_URL, TEST_DATABASES).
 */
export function openSqlAdapter(database: 'pglite' | 'postgres'): OpenAdapter | null {
  const target = testDatabases.find((candidate) => candidate.name === database);
  if (target === undefined) return null;
  return async () => {
    const opened = await openTestDatabase(target);
    // As the service runs them: on PGlite, pages read in parts (here of 3 and 2 by turns, so that
    // every page of the contract is several parts, of sizes that change as others come and go),
    // on PostgreSQL in one statement.
    let parts = 0;
    const pagePart = database === 'pglite' ? () => (parts++ % 2 === 0 ? 3 : 2) : undefined;
    return {
      repositories: createRepositories(opened.dataSource.manager, {
        streaming: { lane: new ConcurrencyLimit(1), laterBatchSize: 2, pagePart },
      }),
      unitOfWork: new SqlUnitOfWork(opened.dataSource),
      feed: new SqlChangeFeed(opened.dataSource.manager, { pagePart }),
      close: () => opened.close(),
    };
  };
}
