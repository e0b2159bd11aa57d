import { existsSync, readdirSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { BackupError } from '../../infrastructure/persistence/backup/backup-format';
import { readBackupHeader, restoreBackup } from '../../infrastructure/persistence/backup/restore-backup';
import { CliFailure } from '../cli-errors';
import { defineCommand } from '../command';
import { printLine } from '../write-text';
import { describeRows } from './backup';
import { describeFileError } from './file-errors';

export const restoreCommand = defineCommand({
  path: ['restore'],
  summary: 'load a backup into an empty directory',
  description: [
    'Loads a file that `backup` wrote into an empty directory: a DATA_DIR that does not exist or is',
    "empty, or (DATABASE_URL) a PostgreSQL database holding none of the directory's tables. All or",
    'nothing. The directory then answers as the original did: the same ids, keys, webhook',
    'subscriptions and secrets, and change cursors taken before the backup go on. Its webhook',
    'subscriptions start disabled, so that a copy calls no receiver: `webhooks enable ID` resumes',
    'each from where the backup left it. A backup of either database restores into either. One',
    'made by an older version is brought up to date. Start the service on the restored directory',
    'afterwards, not during.',
  ].join('\n'),
  positionals: [{ name: 'FILE' }],
  database: 'raw',
  // Before DATA_DIR is opened, which creates it: a wrong file or directory leaves nothing behind.
  async check({ positionals: [file], config }) {
    if (config.databaseUrl === null) refuseUsedDataDir(config.dataDir);
    // A pipe can be read once only: its header is checked as it is loaded.
    if (statOf(file).isFile()) await restoring(file, () => readFile(file).then(readBackupHeader));
  },
  async run({ io, positionals: [file], database }) {
    if (database.servedBy !== undefined) {
      throw new CliFailure(
        `cannot restore into DATA_DIR: the service (process ${database.servedBy}) runs on it; ` +
          'restore into a new DATA_DIR, with the service stopped',
      );
    }
    const input = await readFile(file);
    const { header, rows, migrated, webhooks } = await restoring(file, () => restoreBackup(database, input));
    const source = header.database === 'pglite' ? 'the embedded database' : 'PostgreSQL';
    printLine(
      io.stdout,
      `restored ${describeRows(rows)} from ${file} (a backup of ${source} made ${header.created_at})`,
    );
    if (migrated.length > 0) {
      printLine(io.stdout, `brought it up to date: applied ${migrated.join(', ')}`);
    }
    for (const { id, url, disabledBefore } of webhooks) {
      const why =
        disabledBefore === null
          ? 'starts disabled, so that this copy calls no receiver'
          : `was disabled in the backup (${disabledBefore})`;
      printLine(
        io.stdout,
        `webhook subscription ${id} (${url}) ${why}; resume it with: npm run cli -- webhooks enable ${id}`,
      );
    }
  },
});

async function restoring<T>(file: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BackupError) throw new CliFailure(`cannot restore ${file}: ${error.message}`);
    if (typeof error === 'object' && error !== null && 'syscall' in error) {
      throw new CliFailure(describeFileError(error, file, 'read'));
    }
    throw error;
  }
}

function statOf(file: string) {
  try {
    return statSync(file);
  } catch (error) {
    throw new CliFailure(describeFileError(error, file, 'read'));
  }
}

async function readFile(file: string): Promise<Readable> {
  try {
    return (await open(file, 'r')).createReadStream();
  } catch (error) {
    throw new CliFailure(describeFileError(error, file, 'read'));
  }
}

/**
 * The embedded database's rule: a DATA_DIR that does not exist or is empty. One that holds a
 * database is let through to the check of its tables (a restore that failed leaves an empty one);
 * one that holds other files is refused before anything is written into it.
 */
function refuseUsedDataDir(dataDir: string): void {
  const path = resolve(dataDir);
  if (!existsSync(path) || existsSync(join(path, 'PG_VERSION'))) return;
  if (statSync(path).isDirectory() && readdirSync(path).length === 0) return;
  throw new CliFailure(
    `cannot restore into DATA_DIR ${dataDir}: it is not empty and holds no database; restore into a new or empty directory`,
  );
}
