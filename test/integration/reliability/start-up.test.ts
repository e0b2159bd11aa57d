import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE } from '../../../src/infrastructure/embedded/data-dir-lock';
import { migrate, openDatabase } from '../../../src/infrastructure/persistence/database';
import { SOCKET_NAME } from '../../../src/infrastructure/embedded/database-socket-path';
import { testDatabases } from '../../support/databases';
import { copyMigratedDataDir, NODE_FLAGS, serviceBuild } from '../../support/run-artifacts';

const postgresUrl = testDatabases.find(({ name }) => name === 'postgres')?.url ?? null;

/** Runs the compiled service to its exit and answers what it printed. */
function runToExit(
  main: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, main], {
      env: { PATH: process.env.PATH ?? '', BCRYPT_COST: '4', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Start-up failures of the real process. The embedded database is where it matters most: there
 * the service also takes command-line requests, which it must not do without its HTTP port.
 */
describe('start-up of the running service', () => {
  let service: Awaited<ReturnType<typeof serviceBuild>>;
  let occupied: Server;
  let dataDir: string;

  beforeAll(async () => {
    service = await serviceBuild('start-up-build');
    // Every address, as the service listens: nothing else can have this port.
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(0, resolve));
  }, 120_000);
  afterAll(async () => {
    service?.remove();
    await new Promise((resolve) => occupied?.close(resolve));
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'start-up-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('on a port already in use says so, exits 1, and neither lets the command line in nor keeps the data directory', async () => {
    // A migrated directory is all the service needs to reach listening; no account or person.
    await copyMigratedDataDir(dataDir);
    const port = (occupied.address() as { port: number }).port;

    const run = await runToExit(service.main, { PORT: String(port), DATA_DIR: dataDir });

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`start-up failed: cannot listen: port ${port} is already in use\n`);
    expect(run.stdout).not.toContain('the command line reaches the database here');
    expect(run.stdout).not.toContain('listening on');
    // The lock and the socket are gone: `npm run cli` opens the directory itself again.
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    expect(existsSync(join(dataDir, SOCKET_NAME))).toBe(false);
  }, 60_000);

  it('refuses a TRUST_PROXY that trusts every address in one line, exit 1, where it used to print a stack', async () => {
    const run = await runToExit(service.main, {
      PORT: '0',
      DATA_DIR: dataDir,
      TRUST_PROXY: '0.0.0.0/0,::/0',
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'configuration error: TRUST_PROXY "0.0.0.0/0,::/0" is refused: it trusts every IPv4 and IPv6 address, so any client could choose its own address in X-Forwarded-For; give the number of proxies in front (e.g. 1) or their own addresses\n',
    );
    expect(run.stdout).toBe('');
  }, 60_000);

  it('refuses an embedded database that a newer version migrated, in one line, exit 1, leaving it as it was', async () => {
    await copyMigratedDataDir(dataDir);
    const database = await openDatabase({ databaseUrl: null, dataDir });
    await database.dataSource.query(
      "INSERT INTO migrations (timestamp, name) VALUES (1799999999999, 'SomethingNewer1799999999999')",
    );
    const before = await database.dataSource.query('SELECT count(*)::int AS count FROM migrations');
    await database.close();

    const run = await runToExit(service.main, { PORT: '0', DATA_DIR: dataDir });

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(NEWER_SCHEMA);
    expect(run.stdout).not.toContain('listening on');
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    const after = await openDatabase({ databaseUrl: null, dataDir });
    expect(await after.dataSource.query('SELECT count(*)::int AS count FROM migrations')).toEqual(before);
    await after.close();
  }, 60_000);

  (postgresUrl === null ? it.skip : it)(
    'refuses a PostgreSQL database that a newer version migrated, in one line, exit 1',
    async () => {
      const schema = `startup_${randomBytes(4).toString('hex')}`;
      const database = await openDatabase({ databaseUrl: postgresUrl as string, schema });
      try {
        await migrate(database);
        await database.dataSource.query(
          "INSERT INTO migrations (timestamp, name) VALUES (1799999999999, 'SomethingNewer1799999999999')",
        );
        // The service works in that schema, as in its own database.
        const url = new URL(postgresUrl as string);
        url.searchParams.set('options', `-c search_path=${schema}`);

        const run = await runToExit(service.main, { PORT: '0', DATABASE_URL: url.toString() });

        expect(run.code).toBe(1);
        expect(run.stderr).toBe(NEWER_SCHEMA);
      } finally {
        await database.dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await database.close();
      }
    },
    60_000,
  );
});

const NEWER_SCHEMA =
  "start-up failed: the database's schema is newer than this code: it holds migration SomethingNewer1799999999999, " +
  'which this version does not know; upgrade the code (git pull, npm ci, npm run build) and start that\n';
