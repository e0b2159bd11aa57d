import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE } from '../../../src/infrastructure/persistence/data-dir-lock';
import { SOCKET_NAME } from '../../../src/infrastructure/persistence/database-socket-path';
import { copyMigratedDataDir, NODE_FLAGS, serviceBuild } from '../../support/run-artifacts';

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
});
