import { describePersistenceContract } from './persistence.contract';
import { openSqlAdapter } from './sql-adapter';

describePersistenceContract('the SQL adapters on PGlite', openSqlAdapter('pglite'));
