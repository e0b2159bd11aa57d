import { BackupError } from '../../infrastructure/persistence/backup/backup-format';
import { writeBackup } from '../../infrastructure/persistence/backup/write-backup';
import { CliFailure } from '../cli-errors';
import { defineCommand } from '../command';
import { writePrivateFile } from '../private-file';
import { printLine } from '../write-text';

export const backupCommand = defineCommand({
  path: ['backup'],
  summary: 'write the whole directory to a file, for restore',
  description: [
    'Writes everything the directory holds to FILE: people, accounts and keys, webhook subscriptions',
    'with their secrets and deliveries, the audit log, the change feed and its position, and the',
    "schema's migrations. One consistent snapshot, taken while the service runs (it need not stop):",
    'on PostgreSQL nothing waits for it; on the embedded database requests wait while it reads.',
    '`restore FILE` loads it into an empty directory, on either database.',
    'FILE holds every password hash and webhook secret: it is made readable by its owner only (0600).',
    "Never back up the embedded database by copying DATA_DIR's files while the service runs.",
  ].join('\n'),
  positionals: [{ name: 'FILE' }],
  async run({ io, positionals: [file], database }) {
    const { rows } = await writePrivateFile(file, (out) => writeBackup(database, out)).catch((error) => {
      if (error instanceof BackupError) throw new CliFailure(`cannot back up: ${error.message}`);
      throw error;
    });
    printLine(io.stdout, `backed up ${describeRows(rows)} to ${file}`);
  },
});

/** "1,204 people and 35,110 other rows (changes, audit entries, ...)". */
export function describeRows(rows: Record<string, number>): string {
  const people = rows.people ?? 0;
  const others = Object.entries(rows)
    .filter(([table]) => table !== 'people')
    .reduce((sum, [, count]) => sum + count, 0);
  return `${people.toLocaleString('en')} people and ${others.toLocaleString('en')} other rows`;
}
