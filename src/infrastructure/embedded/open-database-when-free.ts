import { setTimeout as sleep } from 'node:timers/promises';
import { DataDirectoryInUse, type LockOwner } from './data-dir-lock';
import { type Database, type DatabaseOptions, openDatabase } from '../persistence/database';

// How often to look again while a command-line tool has the embedded database open.
const POLL_MS = 250;

/**
 * Opens the database for the service. On the embedded one, a command-line tool that opened
 * DATA_DIR by itself (the service was not running when it started) is waited for, however long
 * its command takes: `onWaiting` is told once. A process that serves the directory is another
 * service: DataDirectoryInUse, at once.
 */
export async function openDatabaseWhenFree(
  options: DatabaseOptions,
  onWaiting: (owner: LockOwner) => void,
): Promise<Database> {
  let told = false;
  for (;;) {
    try {
      return await openDatabase(options);
    } catch (error) {
      if (!(error instanceof DataDirectoryInUse) || error.owner.socket !== null) throw error;
      if (!told) onWaiting(error.owner);
      told = true;
      await sleep(POLL_MS);
    }
  }
}
