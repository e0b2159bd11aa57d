import { type Database, migrationStatus, SchemaNewerThanCode } from '../infrastructure/persistence/database';
import { CliFailure } from './cli-errors';

/**
 * Beside the running service (embedded database reached through its socket), the tool never
 * migrates: the service did when it started. A tool that knows migrations the database lacks is
 * newer code than the service, and changing the schema under it could break it; a database holding
 * migrations the tool does not know was migrated by newer code than the tool. Either way the tool
 * stops before it reads or writes anything.
 */
export async function refuseServiceOnOtherSchema(database: Database): Promise<void> {
  const status = await migrationStatus(database);
  const unknown = status.applied.filter(({ known }) => !known).map(({ name }) => name);
  if (unknown.length > 0) throw new SchemaNewerThanCode(unknown);
  if (status.pending.length > 0) {
    throw new CliFailure(
      `the running service (process ${database.servedBy}) is older than this tool: restart it, ` +
        'which brings the database up to date, then run the command again',
    );
  }
}
