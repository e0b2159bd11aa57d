import { lstatSync } from 'node:fs';
import { createConnection } from 'node:net';
import { Readable } from 'node:stream';
import { loadConfig } from '../config';
import { readDataDirOwner } from '../infrastructure/persistence/data-dir-lock';
import { CliFailure, UsageError } from './cli-errors';
import { resolveFileArguments } from './cli-server-file-arguments';
import type { CliInput, CliIo } from './cli-io';
import {
  encodeFrame,
  type ForwardedCommand,
  LineSplitter,
  LineTooLong,
  parseOutputFrame,
} from './cli-server-protocol';
import type { Command } from './command';
import { COMMANDS } from './commands';
import { parseCommandLine } from './parse-command-line';
import { readPassword } from './read-password';
import { EXIT_FAILURE, runCli } from './run-cli';
import { printLine } from './write-text';

// Output frames are at most a chunk of an export; this only bounds a broken answer.
const MAX_FRAME_BYTES = 64 * 1024 * 1024;
// A password line; more is not a password.
const MAX_STDIN_LINE_BYTES = 64 * 1024;

interface Target {
  command: Command;
  values: Record<string, string | boolean | undefined>;
  socket: string;
  pid: number;
}

/**
 * Runs a command of the tool. While the service runs on the embedded database it owns the data
 * directory, so the command is handed to it over its socket and runs there; otherwise (no
 * service, PostgreSQL, help, wrong usage) it runs here. A service that has died leaves a stale
 * lock: the command then runs here, and the database takes the lock over.
 */
export async function forwardOrRun(
  given: string[],
  io: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
  cwd = process.cwd(),
): Promise<number> {
  // Made absolute here, so that the command finds them wherever it runs: here or in the service.
  const argv = cwd === process.cwd() ? given : resolveFileArguments(given, cwd);
  const target = findService(argv, io.env);
  if (target === null) return runCli(argv, io);
  let stdin: string;
  try {
    stdin = await commandInput(target, io);
  } catch (error) {
    if (!(error instanceof CliFailure || error instanceof UsageError)) throw error;
    printLine(io.stderr, `error: ${error.message}`);
    return EXIT_FAILURE;
  }
  const passwordEnv = target.values['password-env'];
  const variable = typeof passwordEnv === 'string' ? io.env[passwordEnv] : undefined;
  const request: ForwardedCommand = {
    argv,
    cwd,
    stdin,
    env: typeof passwordEnv === 'string' && variable !== undefined ? { [passwordEnv]: variable } : {},
  };
  const code = await forward(target, request, io);
  if (code !== null) return code;
  // The service has gone since its lock was read: the password already typed is not asked again.
  return runCli(argv, readsInput(target) ? { ...io, stdin: Readable.from(stdin === '' ? [] : [stdin]) } : io);
}

/** The running service that holds the data directory and takes commands, if the command needs one. */
function findService(argv: string[], env: CliIo['env']): Target | null {
  try {
    const invocation = parseCommandLine(argv, COMMANDS);
    if (invocation.kind !== 'run') return null;
    const config = loadConfig(env);
    if (config.databaseUrl !== null) return null;
    const owner = readDataDirOwner(config.dataDir);
    if (owner?.socket == null || !ownSocket(owner.socket)) return null;
    return { command: invocation.command, values: invocation.values, socket: owner.socket, pid: owner.pid };
  } catch {
    // Wrong usage, a bad setting, an unreadable lock: running here reports it properly.
    return null;
  }
}

/** A socket of another user is not this service's: nothing is sent to it, not even a password. */
function ownSocket(socket: string): boolean {
  if (process.platform === 'win32') return true;
  try {
    return lstatSync(socket).uid === process.getuid?.();
  } catch {
    return false;
  }
}

/** Only commands that take a password read standard input, and then only its first line. */
function readsInput(target: Target): boolean {
  return 'password-env' in target.command.options && target.values['password-env'] === undefined;
}

async function commandInput(target: Target, io: CliIo): Promise<string> {
  if (!readsInput(target)) return '';
  // At a terminal the password is asked here, unechoed, as the command itself would.
  if (io.stdin.isTTY && typeof io.stdin.setRawMode === 'function')
    return `${await readPassword(io, undefined)}\n`;
  return firstLine(io.stdin);
}

/** Up to and including the first newline: a pipe that stays open after it does not hold the tool. */
async function firstLine(stream: CliInput): Promise<string> {
  let buffer = '';
  for await (const chunk of stream) {
    buffer += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    const end = buffer.indexOf('\n');
    if (end >= 0) return buffer.slice(0, end + 1);
    if (buffer.length > MAX_STDIN_LINE_BYTES) break;
  }
  return buffer;
}

/** The command's exit code, or null when the service cannot be reached. */
function forward(target: Target, request: ForwardedCommand, io: CliIo): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = createConnection(target.socket);
    const lines = new LineSplitter(MAX_FRAME_BYTES);
    let connected = false;
    let exit: number | null = null;
    let failure: string | null = null;
    const fail = (reason: string) => {
      failure ??= reason;
      socket.destroy();
    };
    const show = (frame: { stdout: string } | { stderr: string }) => {
      const [out, text] = 'stdout' in frame ? [io.stdout, frame.stdout] : [io.stderr, frame.stderr];
      // A slow reader of our output slows the service's writing, through the socket.
      if (!out.write(text)) {
        socket.pause();
        out.once('drain', () => socket.resume());
      }
    };
    socket.on('connect', () => {
      connected = true;
      socket.write(encodeFrame(request));
    });
    socket.on('data', (chunk: Buffer) => {
      let texts: string[];
      try {
        texts = lines.push(chunk);
      } catch (error) {
        if (!(error instanceof LineTooLong)) throw error;
        fail('the service sent an answer too large to read');
        return;
      }
      for (const text of texts) {
        const frame = parseOutputFrame(text);
        if (frame === null) {
          fail('the service sent an answer this tool does not understand');
          return;
        }
        if ('exit' in frame) exit = frame.exit >= 0 && frame.exit <= 255 ? frame.exit : EXIT_FAILURE;
        else show(frame);
      }
    });
    // Before the connection: the service is gone, or going; 'close' follows either way.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!connected) return resolve(null);
      if (failure === null && exit !== null) return resolve(exit);
      const reason = failure ?? 'the connection to the service ended early';
      printLine(io.stderr, `error: ${reason} (process ${target.pid}); the command may not have finished`);
      resolve(EXIT_FAILURE);
    });
  });
}
