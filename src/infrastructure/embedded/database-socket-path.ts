import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** PostgreSQL's own name for its socket, so that `psql -h DIRECTORY` finds it too. */
export const SOCKET_NAME = '.s.PGSQL.5432';

// A Unix socket's path must fit in sun_path: 108 bytes on Linux, 104 on macOS, the NUL included.
const MAX_SOCKET_PATH_BYTES = 100;

const PRIVATE_DIRECTORY_PREFIX = 'membership-directory-';

/** Where the service listens for other processes, and how to clean up after it. */
export interface SocketPlace {
  readonly path: string;
  /** Removes the socket and, when one was made for it, its private directory. Safe to repeat. */
  remove(): void;
}

/**
 * `.s.PGSQL.5432` in the data directory (private: see preparePrivateDataDir), so that
 * `psql -h "$PWD/data"` finds it. When that path is too long for a socket, or something other
 * than a socket (which is not ours to delete) already has that name, `.s.PGSQL.5432` in a new
 * directory under the system's temporary directory instead: created by mkdtemp, so under a random
 * name no one can create first, 0700 and ours. (It was once a name derived from the data
 * directory, `/tmp/membership-directory-<hash>.sock`: any local user who created that first
 * stopped the service from starting.) The lock file records where the socket is. On Windows, a
 * named pipe.
 */
export function prepareSocketPlace(dataDir: string): SocketPlace {
  const directory = resolve(dataDir);
  if (process.platform === 'win32') {
    const digest = createHash('sha256').update(realPath(directory)).digest('hex').slice(0, 16);
    return { path: `\\\\.\\pipe\\membership-directory-${digest}`, remove: () => undefined };
  }
  const inside = join(directory, SOCKET_NAME);
  if (fits(inside) && !occupiedByOther(inside)) {
    return { path: inside, remove: () => rmSync(inside, { force: true }) };
  }
  const privateDirectory = makePrivateDirectory();
  const path = join(privateDirectory, SOCKET_NAME);
  return {
    path,
    remove: () => rmSync(privateDirectory, { recursive: true, force: true }),
  };
}

function makePrivateDirectory(): string {
  for (const parent of [tmpdir(), '/tmp']) {
    // The six random characters mkdtemp adds, then the socket's name.
    const longest = join(parent, `${PRIVATE_DIRECTORY_PREFIX}XXXXXX`, SOCKET_NAME);
    if (!fits(longest)) continue;
    const made = mkdtempSync(join(parent, PRIVATE_DIRECTORY_PREFIX));
    // mkdtemp creates it 0700 less the umask; this makes sure of both mode and owner.
    chmodSync(made, 0o700);
    const stat = lstatSync(made);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.()) {
      throw new Error(`${made} is not a directory of this user's`);
    }
    return made;
  }
  throw new Error(
    `no directory for the database's socket: the temporary directory's path (${tmpdir()}) is too long`,
  );
}

function fits(path: string): boolean {
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES;
}

/** Something other than a socket (a stale socket is removed and replaced). */
function occupiedByOther(path: string): boolean {
  try {
    return !lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

function realPath(directory: string): string {
  try {
    return realpathSync(directory);
  } catch {
    return directory;
  }
}
