import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataDirectoryError, LOCK_FILE } from './data-dir-lock';
import { SOCKET_NAME } from './database-socket-path';

/** Group and other permission bits. */
const GROUP_OTHER = 0o077;

/** What PostgreSQL (and so PGlite) writes first into a data directory it creates. */
const DATABASE_MARKER = 'PG_VERSION';

/** DATA_DIR is not the service user's alone, and cannot safely be made so. */
export class DataDirectoryNotPrivate extends DataDirectoryError {}

export interface PrivateDataDir {
  /** The directory, absolute. */
  path: string;
  /** No database was there yet: opening it creates a new, empty one. */
  created: boolean;
  /** Group or others could open the directory or something in it, and no longer can. */
  tightened: boolean;
}

/**
 * Makes the embedded database's directory the service user's alone, before PGlite opens it:
 * anyone who can read its files reads every member's data and the accounts' password hashes.
 * A missing directory is created 0700; an existing one is tightened, with everything inside
 * (PGlite writes many of its files 0666 or 0644, whatever the process umask). Refused rather
 * than changed: a directory of another user, and one that others can open and that holds files
 * but no database, since DATA_DIR pointed by mistake at a home or shared directory must not have
 * that directory's permissions rewritten.
 */
export function preparePrivateDataDir(dataDir: string): PrivateDataDir {
  const path = resolve(dataDir);
  const created = !existsSync(join(path, DATABASE_MARKER));
  // Permission bits mean nothing to Windows; its ACLs are the administrator's business.
  if (process.platform === 'win32') {
    mkdirSync(path, { recursive: true });
    return { path, created, tightened: false };
  }
  if (!existsSync(path)) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    // The mode above is subject to the umask, which might remove owner bits; this is not.
    chmodSync(path, 0o700);
    return { path, created, tightened: false };
  }
  const stat = statSync(path);
  if (!stat.isDirectory()) throw new DataDirectoryNotPrivate(`data directory ${dataDir} is not a directory`);
  if (stat.uid !== process.getuid?.()) {
    throw new DataDirectoryNotPrivate(
      `data directory ${dataDir} belongs to another user (uid ${stat.uid}); run as that user, or choose another DATA_DIR`,
    );
  }
  const open = (stat.mode & GROUP_OTHER) !== 0;
  if (open && created && !onlyOurFiles(path)) {
    throw new DataDirectoryNotPrivate(
      `data directory ${dataDir} can be opened by other users and holds files that are not a database; ` +
        'choose a new or empty DATA_DIR, or make it private first (chmod 700)',
    );
  }
  if (open) chmodSync(path, stat.mode & 0o700);
  const contents = tightenDataDir(path);
  return { path, created, tightened: open || contents > 0 };
}

/**
 * Removes group and other permissions from everything inside the directory (symbolic links are
 * not followed); answers how many entries changed. Cheap: a database has about a thousand files.
 */
export function tightenDataDir(directory: string): number {
  let changed = 0;
  for (const name of readdirSync(directory)) {
    const entry = join(directory, name);
    try {
      const stat = lstatSync(entry);
      if (stat.isSymbolicLink()) continue;
      if ((stat.mode & GROUP_OTHER) !== 0) {
        chmodSync(entry, stat.mode & 0o700);
        changed += 1;
      }
      if (stat.isDirectory()) changed += tightenDataDir(entry);
    } catch (error) {
      // A running database removes temporary files at any moment.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return changed;
}

/** Empty, or holding only what an earlier start of this service left (its lock, its socket). */
function onlyOurFiles(directory: string): boolean {
  return readdirSync(directory).every((name) => name === LOCK_FILE || name === SOCKET_NAME);
}
