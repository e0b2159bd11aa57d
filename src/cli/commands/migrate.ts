import { migrate } from '../../infrastructure/persistence/database';
import type { Command } from '../command';
import { printLine } from '../write-text';

export const migrateCommand: Command = {
  path: ['migrate'],
  summary: 'apply pending database migrations',
  usage: '',
  description: [
    'Applies the schema migrations the database lacks, under a lock, so that it is safe while',
    'other instances start. The service and every other command do this by themselves; this',
    'command is for doing it ahead of a deployment.',
  ].join('\n'),
  options: {},
  positionals: [],
  database: 'raw',
  async run({ io, database }) {
    const applied = await migrate(database);
    if (applied.length === 0) {
      printLine(io.stdout, 'the database is up to date');
      return;
    }
    for (const name of applied) printLine(io.stdout, `applied ${name}`);
    printLine(io.stdout, `applied ${applied.length} migration${applied.length === 1 ? '' : 's'}`);
  },
};
