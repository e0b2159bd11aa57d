import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from 'pino';
import { heldDataDirLock } from '../infrastructure/persistence/data-dir-lock';
import type { Database } from '../infrastructure/persistence/database';
import { commandOf, resolveFileArguments } from './cli-server-file-arguments';
import {
  type ForwardedCommand,
  encodeFrame,
  LineSplitter,
  type OutputFrame,
  parseForwardedCommand,
} from './cli-server-protocol';
import { cliSocketPath } from './cli-server-socket-path';
import { EXIT_FAILURE, runCli } from './run-cli';

export interface CliServerOptions {
  /** The embedded database's directory; this process must hold its lock. */
  dataDir: string;
  /** The service's open database: the very object, so that its caches see every change. */
  database: Database;
  logger: Logger;
  /** The service's HTTP server: commands that print the API's address print its real port. */
  httpServer?: Server;
  /** The environment commands see; the service's own by default. */
  env?: Record<string, string | undefined>;
  /** Where to listen; cliSocketPath(dataDir) by default. */
  socketPath?: string;
  maxRequestBytes?: number;
  /** How long a connection may take to send its request. */
  requestTimeoutMs?: number;
}

export interface CliServer {
  /** Where it listens, or null when it could not. */
  readonly socketPath: string | null;
  /** Stops taking requests, lets the running command finish, and removes the socket. Never rejects. */
  close(): Promise<void>;
}

// An import's records are read from its file by path, so a request is small; the limit only
// stops a runaway client from filling the service's memory.
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Lets `npm run cli` run its commands inside the service while the service holds the embedded
 * database: PGlite belongs to one process, so a second process must not open it. The tool sends
 * its command over a Unix socket that only this OS user may use; the command runs here, one at
 * a time, on the service's own database, and its output streams back.
 */
export function startCliServer(options: CliServerOptions): CliServer {
  const { database, logger } = options;
  const lock = heldDataDirLock(options.dataDir);
  if (lock === undefined) {
    logger.warn('the command line cannot reach this service: it does not hold the data directory');
    return { socketPath: null, close: async () => undefined };
  }
  const socketPath = options.socketPath ?? cliSocketPath(options.dataDir);
  const maxRequestBytes = options.maxRequestBytes ?? MAX_REQUEST_BYTES;
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const waiting = new Set<Socket>();
  let queue: Promise<void> = Promise.resolve();
  let closing = false;

  const run = async (socket: Socket, request: ForwardedCommand) => {
    if (socket.destroyed) return;
    if (closing) {
      await answerFailure(socket, 'the service is shutting down; run the command again once it has stopped');
      return;
    }
    const started = performance.now();
    const stdout = frameStream(socket, 'stdout');
    const stderr = frameStream(socket, 'stderr');
    let code: number;
    try {
      code = await runCli(resolveFileArguments(request.argv, request.cwd), {
        database,
        stdin: Readable.from(request.stdin === '' ? [] : [request.stdin]),
        stdout,
        stderr,
        env: { ...(options.env ?? process.env), ...servicePort(options.httpServer), ...request.env },
      });
    } catch (error) {
      // runCli reports failures itself; this is a bug, and the service must outlive it.
      logger.error({ err: error }, 'a command-line request failed unexpectedly');
      stderr.write('error: the command failed unexpectedly; see the service log\n');
      code = EXIT_FAILURE;
    }
    stdout.end();
    stderr.end();
    await Promise.all([finished(stdout), finished(stderr)]).catch(() => undefined);
    await send(socket, { exit: code });
    socket.end();
    logger.info(
      {
        command: commandOf(request.argv)?.path.join(' ') ?? null,
        exit: code,
        ms: Math.round(performance.now() - started),
      },
      'command-line request',
    );
  };

  // Half-open allowed: a tool that ends its side after the request still gets the answer.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => undefined);
    if (closing) {
      socket.destroy();
      return;
    }
    waiting.add(socket);
    socket.setTimeout(requestTimeoutMs, () => socket.destroy());
    const lines = new LineSplitter(maxRequestBytes);
    let received = false;
    const accept = (text: string) => {
      received = true;
      waiting.delete(socket);
      socket.setTimeout(0);
      socket.off('data', onData);
      socket.pause();
      const request = parseForwardedCommand(text);
      if ('invalid' in request) {
        void answerFailure(socket, `bad request: ${request.invalid}`);
        return;
      }
      // One command at a time: PGlite has one connection, and commands must not interleave.
      queue = queue
        .then(() => run(socket, request))
        .catch((error: unknown) => {
          logger.error({ err: error }, 'a command-line request failed unexpectedly');
          socket.destroy();
        });
    };
    const onData = (chunk: Buffer) => {
      try {
        const [line] = lines.push(chunk);
        if (line !== undefined) accept(line);
      } catch {
        received = true;
        waiting.delete(socket);
        socket.off('data', onData);
        void answerFailure(socket, `bad request: larger than ${maxRequestBytes} bytes`);
      }
    };
    socket.on('data', onData);
    socket.on('end', () => {
      if (received) return;
      if (lines.rest() === '') socket.end();
      else accept(lines.rest());
    });
    socket.on('close', () => waiting.delete(socket));
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    logger.warn(
      { err: error, socket: socketPath },
      'the command line cannot reach this service; with the service running, its commands are refused',
    );
  });

  removeStaleSocket(socketPath);
  // Created unreadable to others from the start: chmod after listen would leave a moment in
  // which another user could connect.
  const umask = process.platform === 'win32' ? null : process.umask(0o177);
  try {
    server.listen(socketPath);
  } finally {
    if (umask !== null) process.umask(umask);
  }
  // A Unix socket is bound by listen() itself: on success the file exists now.
  const listening = server.listening;
  if (listening) {
    if (process.platform !== 'win32') chmodSync(socketPath, 0o600);
    lock.setSocket(socketPath);
    logger.info({ socket: socketPath }, 'taking command-line requests');
  }
  const removeSocket = () => {
    if (listening && process.platform !== 'win32') rmSync(socketPath, { force: true });
  };
  process.on('exit', removeSocket);

  return {
    socketPath: listening ? socketPath : null,
    async close() {
      if (closing) return queue;
      closing = true;
      try {
        lock.setSocket(null);
      } catch {
        // The lock goes with the database a moment later anyway.
      }
      for (const socket of waiting) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      removeSocket();
      process.off('exit', removeSocket);
    },
  };
}

function servicePort(httpServer: Server | undefined): Record<string, string> {
  const address = httpServer?.address();
  return address !== null && typeof address === 'object' ? { PORT: String(address.port) } : {};
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

async function answerFailure(socket: Socket, message: string): Promise<void> {
  await send(socket, { stderr: `error: ${message}\n` });
  await send(socket, { exit: EXIT_FAILURE });
  socket.end();
}

/** Resolves once the frame is handed to the OS, or at once if the tool has gone. */
function send(socket: Socket, frame: OutputFrame): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed || !socket.writable) {
      resolve();
      return;
    }
    const done = () => {
      socket.off('close', done);
      resolve();
    };
    socket.once('close', done);
    socket.write(encodeFrame(frame), () => done());
  });
}

/**
 * A stream whose writes become frames. Each write completes once its frame is handed to the OS,
 * so a large export to standard output waits for the tool instead of piling up here.
 */
function frameStream(socket: Socket, name: 'stdout' | 'stderr'): Writable {
  const decoder = new StringDecoder('utf8');
  const forward = (text: string, callback: () => void) => {
    if (text === '') callback();
    else
      send(socket, (name === 'stdout' ? { stdout: text } : { stderr: text }) as OutputFrame).then(callback);
  };
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      forward(typeof chunk === 'string' ? chunk : decoder.write(chunk), () => callback());
    },
    final(callback) {
      forward(decoder.end(), () => callback());
    },
  });
}
