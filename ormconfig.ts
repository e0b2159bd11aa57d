/**
 * The DataSource the TypeORM CLI loads (migration:generate, migration:show ...), from the same
 * settings as the service: PostgreSQL when DATABASE_URL is set, PGlite in DATA_DIR otherwise.
 * The CLI cannot load TypeScript without ts-node: build first and point it at the compiled file,
 *   npm run build && npx typeorm migration:show -d dist/ormconfig.js
 */
import { loadConfig } from './src/config';
import { createDataSource } from './src/infrastructure/persistence/database';

const config = loadConfig();

export default createDataSource({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }).dataSource;
