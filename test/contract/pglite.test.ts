import { describePersistenceContract } from './persistence.contract';
import { openTypeOrmAdapter } from './sql-adapter';

describePersistenceContract('the TypeORM adapters on PGlite', openTypeOrmAdapter('pglite'));
