import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { VERSION } from '../../../src/version';
import { copyMigratedDataDir, NODE_FLAGS, serviceBuild } from '../../support/run-artifacts';
import { type ServedProcess, startService } from './served-process';

/** 'connected', or the error code of a connection attempt to address:port. */
function connectionAttempt(address: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, address);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** An IPv4 address of this machine other than loopback, if it has one. */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;
}

describe('HOST, the address the compiled service listens on', () => {
  let service: Awaited<ReturnType<typeof serviceBuild>>;
  // One migrated DATA_DIR per start, made before the tests: on a busy machine a migration alone
  // takes seconds, which the tests' own time should not pay.
  const dataDirs: string[] = [];
  beforeAll(async () => {
    service = await serviceBuild('listen-build');
    for (let i = 0; i < 3; i += 1) {
      const dir = mkdtempSync(join(tmpdir(), 'listen-'));
      dataDirs.push(dir);
      await copyMigratedDataDir(dir);
    }
  }, 180_000);
  afterAll(() => {
    service?.remove();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  async function stop(running: ServedProcess): Promise<void> {
    running.child.kill('SIGTERM');
    await running.exited;
  }

  it('listens on 127.0.0.1 alone when HOST says so, and names the address and the release', async () => {
    const running = await startService(service.main, { DATA_DIR: dataDirs[0], HOST: '127.0.0.1' });
    try {
      const listening = await running.logged((line) => typeof line.port === 'number');
      expect(listening).toMatchObject({
        level: 'info',
        address: '127.0.0.1',
        version: VERSION,
        msg: `Membership Directory ${VERSION} listening on http://127.0.0.1:${running.port}`,
      });
      // The release is read from package.json by the build too (two levels above it, not one).
      const health = await fetch(`http://127.0.0.1:${running.port}/healthz`);
      expect(await health.json()).toEqual({ status: 'ok', version: VERSION });
      const outside = outsideAddress();
      if (outside !== undefined) {
        expect(await connectionAttempt(outside, running.port)).toBe('ECONNREFUSED');
      }
    } finally {
      await stop(running);
    }
  }, 60_000);

  it('listens on every interface when HOST is unset', async () => {
    const running = await startService(service.main, { DATA_DIR: dataDirs[1] });
    try {
      const listening = await running.logged((line) => typeof line.port === 'number');
      expect(['::', '0.0.0.0']).toContain(listening.address);
      expect(await connectionAttempt('127.0.0.1', running.port)).toBe('connected');
      const outside = outsideAddress();
      if (outside !== undefined) expect(await connectionAttempt(outside, running.port)).toBe('connected');
    } finally {
      await stop(running);
    }
  }, 60_000);

  it('refuses to start, in one line, on an address that is not one of this machine', async () => {
    const child = spawn(process.execPath, [...NODE_FLAGS, service.main], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        BCRYPT_COST: '4',
        HOST: '198.51.100.1',
        DATA_DIR: dataDirs[2],
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe(
      'start-up failed: cannot listen: HOST 198.51.100.1 is not an address of this machine (EADDRNOTAVAIL)\n',
    );
  }, 60_000);
});
