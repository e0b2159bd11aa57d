import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** PostgreSQL's own name for its socket, so that `psql -h DATA_DIR` finds it too. */
export const SOCKET_NAME = '.s.PGSQL.5432';

// A Unix socket's path must fit in sun_path: 108 bytes on Linux, 104 on macOS, the NUL included.
const MAX_SOCKET_PATH_BYTES = 100;

/**
 * Where a service on the embedded database lets the command-line tool in: `.s.PGSQL.5432` in its
 * data directory, or, when that path is too long for a socket, a name under the system's
 * temporary directory derived from the data directory's real path (a named pipe on Windows).
 */
export function databaseSocketPath(dataDir: string): string {
  const directory = resolve(dataDir);
  const digest = () => createHash('sha256').update(realPath(directory)).digest('hex').slice(0, 16);
  if (process.platform === 'win32') return `\\\\.\\pipe\\membership-directory-${digest()}`;
  const inside = join(directory, SOCKET_NAME);
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH_BYTES) return inside;
  return join(tmpdir(), `membership-directory-${digest()}.sock`);
}

function realPath(directory: string): string {
  try {
    return realpathSync(directory);
  } catch {
    return directory;
  }
}
