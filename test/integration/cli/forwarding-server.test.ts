import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { type CliServer, startCliServer } from '../../../src/cli/cli-server';
import type { OutputFrame } from '../../../src/cli/cli-server-protocol';
import { acquireDataDirLock, LOCK_FILE } from '../../../src/infrastructure/persistence/data-dir-lock';
import { type Database, migrate, openDatabase } from '../../../src/infrastructure/persistence/database';

const logger = pino({ level: 'silent' });
const env = { BCRYPT_COST: '4', LOG_LEVEL: 'silent' };
const MAX_REQUEST_BYTES = 4096;

/** Sends raw bytes to the socket and collects the frames answered until the service closes. */
function ask(socketPath: string, payload: string): Promise<OutputFrame[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () =>
      resolve(
        data
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as OutputFrame),
      ),
    );
    socket.write(payload);
  });
}

function command(argv: string[], extra: { cwd?: string; stdin?: string; env?: Record<string, string> } = {}) {
  return `${JSON.stringify({ argv, cwd: extra.cwd ?? tmpdir(), stdin: extra.stdin ?? '', env: extra.env ?? {} })}\n`;
}

const failure = (message: string): OutputFrame[] => [{ stderr: `error: ${message}\n` }, { exit: 1 }];

describe('the service side of command-line forwarding', () => {
  let dataDir: string;
  let database: Database;
  let server: CliServer;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cli-server-'));
    database = await openDatabase({ databaseUrl: null, dataDir });
    await migrate(database);
    server = startCliServer({ dataDir, database, logger, env, maxRequestBytes: MAX_REQUEST_BYTES });
  }, 60_000);

  afterAll(async () => {
    await server.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('listens on cli.sock in the data directory, for this user only, and records it in the lock', () => {
    const socketPath = join(dataDir, 'cli.sock');
    expect(server.socketPath).toBe(socketPath);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toEqual({
      pid: process.pid,
      socket: socketPath,
    });
  });

  it('runs a command on its database and answers its output, then its exit code', async () => {
    const created = await ask(
      server.socketPath!,
      command(['accounts', 'create', '--username', 'piped', '--permissions', 'read'], {
        stdin: 'a long password\n',
      }),
    );
    expect(created).toEqual([
      {
        stdout: expect.stringMatching(
          /^created the account "piped" \(person \d+, role admin, permissions: read\)\n$/,
        ),
      },
      { exit: 0 },
    ]);
    const [{ count }] = await database.dataSource.query(
      "SELECT count(*)::int AS count FROM people WHERE username = 'piped'",
    );
    expect(count).toBe(1);
  });

  it('takes the password variable from the request, not from its own environment', async () => {
    const argv = ['accounts', 'create', '--username', 'from-env', '--password-env', 'NEW_PASSWORD'];
    expect(await ask(server.socketPath!, command(argv))).toEqual(
      failure('the environment variable NEW_PASSWORD is not set or is empty'),
    );
    const created = await ask(
      server.socketPath!,
      command(argv, { env: { NEW_PASSWORD: 'a long password' } }),
    );
    expect(created.at(-1)).toEqual({ exit: 0 });
  });

  it('reads and writes FILE arguments relative to the working directory the tool sent', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'cli-server-cwd-'));
    try {
      const exported = await ask(server.socketPath!, command(['export', 'out.json'], { cwd }));
      expect(exported.at(-1)).toEqual({ exit: 0 });
      expect(JSON.parse(readFileSync(join(cwd, 'out.json'), 'utf8'))).toEqual(expect.any(Array));
      expect(await ask(server.socketPath!, command(['import', 'missing.json'], { cwd }))).toEqual(
        failure(`cannot read ${join(cwd, 'missing.json')}: no such file`),
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('answers wrong usage as the tool would, with exit 2', async () => {
    expect(await ask(server.socketPath!, command(['accounts', 'frobnicate']))).toEqual([
      {
        stderr:
          'error: unknown command "accounts frobnicate"; try create, grant, revoke, password, disable, enable, list\n',
      },
      { stderr: 'see: npm run cli -- accounts --help\n' },
      { exit: 2 },
    ]);
  });

  it('refuses malformed and oversized requests with an error frame, and goes on serving', async () => {
    expect(await ask(server.socketPath!, 'not json\n')).toEqual(
      failure('bad request: the request is not JSON'),
    );
    expect(await ask(server.socketPath!, '{"argv": "demo", "cwd": "/"}\n')).toEqual(
      failure('bad request: argv must be a list of strings'),
    );
    expect(await ask(server.socketPath!, '{"argv": [], "cwd": "relative"}\n')).toEqual(
      failure('bad request: cwd must be an absolute path'),
    );
    expect(await ask(server.socketPath!, 'x'.repeat(MAX_REQUEST_BYTES + 1))).toEqual(
      failure(`bad request: larger than ${MAX_REQUEST_BYTES} bytes`),
    );
    expect(await ask(server.socketPath!, command(['accounts', 'list', '--json']))).toEqual([
      { stdout: expect.stringContaining('"username": "piped"') },
      { exit: 0 },
    ]);
  });

  it('survives a tool that goes away before its answer, and completes requests sent at once', async () => {
    await new Promise<void>((resolve) => {
      const socket = createConnection(server.socketPath!, () => {
        socket.write(command(['export']));
        socket.destroy();
        resolve();
      });
    });
    const names = ['one', 'two', 'three'];
    const answers = await Promise.all(
      names.map((name) =>
        ask(
          server.socketPath!,
          command(['accounts', 'create', '--username', name], { stdin: 'a long password\n' }),
        ),
      ),
    );
    expect(answers.map((frames) => frames.at(-1))).toEqual([{ exit: 0 }, { exit: 0 }, { exit: 0 }]);
  });

  it('on close, removes its socket and clears it from the lock', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'cli-server-close-'));
    const lock = acquireDataDirLock(otherDir);
    try {
      const other = startCliServer({ dataDir: otherDir, database, logger, env });
      const socketPath = other.socketPath!;
      expect(existsSync(socketPath)).toBe(true);
      await other.close();
      expect(existsSync(socketPath)).toBe(false);
      expect(JSON.parse(readFileSync(join(otherDir, LOCK_FILE), 'utf8'))).toEqual({
        pid: process.pid,
        socket: null,
      });
    } finally {
      lock.release();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('listens under the temporary directory when the data directory path is too long for a socket', async () => {
    const longDir = join(mkdtempSync(join(tmpdir(), 'cli-server-long-')), 'd'.repeat(60), 'e'.repeat(60));
    mkdirSync(longDir, { recursive: true });
    const lock = acquireDataDirLock(longDir);
    try {
      const other = startCliServer({ dataDir: longDir, database, logger, env });
      const socketPath = other.socketPath!;
      expect(socketPath.startsWith(tmpdir())).toBe(true);
      expect(statSync(socketPath).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(join(longDir, LOCK_FILE), 'utf8')).socket).toBe(socketPath);
      expect((await ask(socketPath, command(['migrate']))).at(-1)).toEqual({ exit: 0 });
      await other.close();
      expect(existsSync(socketPath)).toBe(false);
    } finally {
      lock.release();
      rmSync(join(longDir, '../..'), { recursive: true, force: true });
    }
  });

  it('does not start without holding the data directory', () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'cli-server-unlocked-'));
    try {
      const other = startCliServer({ dataDir: otherDir, database, logger, env });
      expect(other.socketPath).toBeNull();
      expect(existsSync(join(otherDir, 'cli.sock'))).toBe(false);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
