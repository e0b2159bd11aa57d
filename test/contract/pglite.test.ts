import { describePersistenceContract } from './persistence.contract';
import { openTypeOrmAdapter } from './typeorm-adapter';

describePersistenceContract('the TypeORM adapters on PGlite', openTypeOrmAdapter('pglite'));
