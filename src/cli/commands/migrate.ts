import { migrate, migrationStatus } from '../../infrastructure/persistence/database';
import { defineCommand } from '../command';
import { formatTable } from '../format-table';
import { refuseServiceOnOtherSchema } from '../served-schema';
import { printLine } from '../write-text';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

export const migrateCommand = defineCommand({
  path: ['migrate'],
  summary: 'apply pending database migrations (--status: list them)',
  description: [
    'Applies the schema migrations the database lacks, under a lock, so that it is safe while',
    'other instances start. The service and every other command do this by themselves; this',
    'command is for doing it ahead of a deployment. With --status it changes nothing and lists the',
    'migrations applied and pending (exit 0 either way), and any applied by a newer version of the',
    'service, which this one refuses to start on.',
  ].join('\n'),
  options: {
    status: { type: 'boolean', description: 'list applied and pending migrations; change nothing' },
  },
  database: 'raw',
  async run({ io, database, values }) {
    if (values.status) {
      const { applied, pending } = await migrationStatus(database);
      const rows = [
        ...applied.map(({ name, known }) => [known ? 'applied' : 'unknown', name]),
        ...pending.map((name) => ['pending', name]),
      ];
      if (rows.length > 0) printLine(io.stdout, formatTable(['STATUS', 'MIGRATION'], rows));
      const unknown = applied.filter(({ known }) => !known).length;
      let summary = `${applied.length} applied, ${pending.length} pending`;
      if (unknown > 0) {
        summary +=
          `; ${plural(unknown, 'migration')} applied by a newer version than this one ("unknown"): ` +
          'upgrade the code before starting it';
      } else if (pending.length > 0) summary += ': `npm run cli -- migrate` applies them';
      printLine(io.stdout, summary);
      return;
    }
    // Beside the running service the schema is the service's: only checked, never changed.
    if (database.servedBy !== undefined) await refuseServiceOnOtherSchema(database);
    const applied = await migrate(database);
    if (applied.length === 0) {
      printLine(io.stdout, 'the database is up to date');
      return;
    }
    for (const name of applied) printLine(io.stdout, `applied ${name}`);
    printLine(io.stdout, `applied ${plural(applied.length, 'migration')}`);
  },
});
