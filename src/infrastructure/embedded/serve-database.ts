import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { heldDataDirLock } from './data-dir-lock';
import type { Database } from '../persistence/database';
import { prepareSocketPlace, type SocketPlace } from './database-socket-path';
import { fatalError } from './pg-wire';

export interface ServeDatabaseOptions {
  logger: Logger;
  /** How long a connection may hold the session without sending anything (default 10 s). */
  idleMs?: number;
  /** Connections at once (default 8); each command-line tool opens one. */
  maxConnections?: number;
  /** Where to listen; prepareSocketPlace(DATA_DIR) by default. */
  socketPath?: string;
}

export interface DatabaseServer {
  readonly socketPath: string;
  /**
   * Takes no more connections, and ends each one as soon as it holds no transaction: what a
   * command-line tool has begun is committed or rolled back, never cut in half. Never rejects.
   */
  close(): Promise<void>;
}

// Between two statements of one transaction, a command-line tool computes for milliseconds; ten
// seconds without a word means it is stuck (stopped, or waiting for a terminal), and everyone
// else is waiting for it.
const IDLE_MS = 10_000;
const MAX_CONNECTIONS = 8;

/**
 * Lets other processes of this OS user in to the embedded database this process holds, over
 * PostgreSQL's own protocol on a Unix socket (mode 0600, in the 0700 DATA_DIR or in a private
 * directory of its own: see prepareSocketPlace): PGlite belongs to
 * one process, so while the service runs, `npm run cli` connects here like any PostgreSQL client.
 * Its connections take turns with the service's on PGlite's one session (see PgliteGate), each
 * with its own settings, which never reach the service's queries; the service's credential cache
 * is cleared whenever one of them finishes a transaction.
 */
export async function serveDatabase(
  database: Database,
  options: ServeDatabaseOptions,
): Promise<DatabaseServer> {
  const { gate, dataDir } = database;
  const lock = dataDir === undefined ? undefined : heldDataDirLock(dataDir.path);
  if (gate === undefined || dataDir === undefined || lock === undefined) {
    throw new Error('only an embedded database on a directory this process holds can be served');
  }
  const { logger } = options;
  const place: SocketPlace =
    options.socketPath === undefined
      ? prepareSocketPlace(dataDir.path)
      : { path: options.socketPath, remove: () => rmSync(options.socketPath as string, { force: true }) };
  const socketPath = place.path;
  const idleMs = options.idleMs ?? IDLE_MS;
  const maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  let closing = false;
  const sockets = new Set<Socket>();

  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    if (closing || gate.visitorCount >= maxConnections) {
      socket.end(
        closing
          ? fatalError('57P03', 'the service is shutting down; try again once it has stopped')
          : fatalError('53300', `too many connections (at most ${maxConnections})`),
      );
      return;
    }
    const session = gate.open(
      { write: (data) => socket.write(data), end: () => socket.end() },
      {
        idleMs,
        onIdleCut: () =>
          logger.warn(
            { idleMs },
            'a command-line connection held the database without a word: cut off, its transaction rolled back',
          ),
        onHandOverFailed: (error) =>
          logger.error(
            { err: error },
            'the embedded database could not hand its session over: a connection was cut off',
          ),
      },
    );
    socket.on('data', (chunk: Buffer) => session.receive(chunk));
    socket.on('close', () => void session.close());
  });

  removeStaleSocket(socketPath);
  const removeSocket = () => {
    try {
      place.remove();
    } catch {
      // Best effort: a socket left behind is replaced at the next start.
    }
  };
  try {
    await listen(server, socketPath);
  } catch (error) {
    removeSocket();
    throw error;
  }
  if (process.platform !== 'win32') chmodSync(socketPath, 0o600);
  lock.setSocket(socketPath);
  process.on('exit', removeSocket);
  logger.info({ socket: socketPath }, 'the command line reaches the database here');

  return {
    socketPath,
    async close() {
      if (closing) return;
      closing = true;
      try {
        lock.setSocket(null);
      } catch {
        // The lock goes with the database a moment later anyway.
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await gate.closeVisitors();
      // Ended, but a client that does not close its side (a stopped process) must not hold us.
      for (const socket of sockets) socket.destroy();
      await stopped;
      removeSocket();
      process.off('exit', removeSocket);
    },
  };
}

/**
 * Created unreadable to others from the start: chmod after listen would leave a moment in which
 * another user could connect.
 */
function listen(server: Server, socketPath: string): Promise<void> {
  const umask = process.platform === 'win32' ? null : process.umask(0o177);
  try {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    // listen() binds the socket before it returns; the umask is back before anything else runs.
    if (umask !== null) process.umask(umask);
  }
}

function removeStaleSocket(socketPath: string): void {
  if (process.platform === 'win32') return;
  try {
    // Only a socket: a file of another kind under that name is not ours to delete.
    if (lstatSync(socketPath).isSocket()) rmSync(socketPath);
  } catch {
    // Missing, or not removable: listen() reports what matters.
  }
}
