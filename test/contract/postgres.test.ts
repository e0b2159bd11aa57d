import { describePersistenceContract } from './persistence.contract';
import { openTypeOrmAdapter } from './sql-adapter';

describePersistenceContract(
  'the TypeORM adapters on PostgreSQL (TEST_DATABASE_URL)',
  openTypeOrmAdapter('postgres'),
);
