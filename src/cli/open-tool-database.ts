import { lstatSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config';
import { DataDirectoryInUse, readDataDirOwner } from '../infrastructure/embedded/data-dir-lock';
import { connectToDatabaseServer, type Database, openDatabase } from '../infrastructure/persistence/database';
import { Unavailable } from '../domain/errors';
import { preparePrivateDataDir } from '../infrastructure/embedded/private-data-dir';
import { CliFailure } from './cli-errors';
import type { CliIo } from './cli-io';
import { printLine } from './write-text';

// How often to look again while another process has the embedded database open.
const POLL_MS = 200;

/**
 * Opens the database the settings name and says which, on standard error (standard output may
 * be an export): a tool run without the service's DATA_DIR would otherwise quietly work on a
 * second, empty database of its own.
 *
 * PGlite belongs to one process. While the service runs, it holds DATA_DIR and serves it on a
 * socket: the tool connects there, like any PostgreSQL client. Otherwise the tool opens the
 * directory itself. While another process has it open without serving it (another command, or
 * the service still starting), the tool says so and waits.
 */
export async function openToolDatabase(config: Config, io: CliIo): Promise<Database> {
  const say = (line: string) => printLine(io.stderr, line);
  if (config.databaseUrl !== null) {
    const database = await openDatabase({ databaseUrl: config.databaseUrl });
    say(`using PostgreSQL at ${postgresLocation(config.databaseUrl)}`);
    return database;
  }
  // Checked and tightened here too: the tool must not read a directory of another user's.
  const dataDir = preparePrivateDataDir(config.dataDir);
  let waitingFor: string | null = null;
  for (;;) {
    const owner = readDataDirOwner(dataDir.path);
    if (owner === null) {
      try {
        const database = await openDatabase({ databaseUrl: null, dataDir: dataDir.path });
        if (dataDir.created) {
          say(
            `created a new, empty embedded database in ${dataDir.path}; ` +
              'the service sees it only if it runs with this DATA_DIR too',
          );
        } else say(`using the embedded database in ${dataDir.path}`);
        if (dataDir.tightened) say('it could be opened by other users: now only this user can');
        return database;
      } catch (error) {
        // Another process took it first: look again at who.
        if (!(error instanceof DataDirectoryInUse)) throw error;
        continue;
      }
    }
    let reason = `process ${owner.pid}, which has the embedded database in ${dataDir.path} open (another command, or the service starting)`;
    if (owner.socket !== null) {
      const database = await connectToService(owner.socket, owner.pid);
      if (database !== null) {
        say(`using the embedded database in ${dataDir.path}, through the service (process ${owner.pid})`);
        return database;
      }
      reason = `the service (process ${owner.pid}), which takes no more connections now`;
    }
    if (waitingFor !== reason) say(`waiting for ${reason}`);
    waitingFor = reason;
    await sleep(POLL_MS);
  }
}

/** A connection to the service, or null when it takes none now (starting, stopping, or full). */
async function connectToService(socket: string, pid: number): Promise<Database | null> {
  const uid = process.platform === 'win32' ? undefined : socketOwner(socket);
  if (uid === null) return null;
  // A socket of another user is not this service's: nothing is sent to it, not even a password.
  if (uid !== undefined && uid !== process.getuid?.()) {
    throw new CliFailure(
      `the embedded database is in use by process ${pid}, whose socket ${socket} ` +
        'belongs to another user; run the tool as the service user',
    );
  }
  try {
    return await connectToDatabaseServer(socket, pid);
  } catch (error) {
    if (error instanceof Unavailable) return null;
    throw error;
  }
}

function socketOwner(socket: string): number | null {
  try {
    return lstatSync(socket).uid;
  } catch {
    return null;
  }
}

/** Host, port and database name: never the user name or password a connection string may hold. */
function postgresLocation(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const host = url.host || url.searchParams.get('host') || 'localhost';
  return `${host}${url.pathname}`;
}
