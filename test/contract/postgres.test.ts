import { describePersistenceContract } from './persistence.contract';
import { openSqlAdapter } from './sql-adapter';

describePersistenceContract('the SQL adapters on PostgreSQL (TEST_DATABASE_URL)', openSqlAdapter('postgres'));
