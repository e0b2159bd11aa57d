import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  acquireDataDirLock,
  DataDirectoryInUse,
  LOCK_FILE,
  readDataDirOwner,
} from '../../../src/infrastructure/embedded/data-dir-lock';
import { openDatabase } from '../../../src/infrastructure/persistence/database';
import { migratedDataDir } from '../../support/run-artifacts';

const directories: string[] = [];

function newDataDir(): string {
  const directory = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  directories.push(directory);
  return directory;
}

/** A directory with a database in it already: these tests are about the lock, not creating one. */
async function existingDataDir(): Promise<string> {
  const directory = await migratedDataDir('data-dir-lock-');
  directories.push(directory);
  return directory;
}

function lockContent(dataDir: string): unknown {
  return JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'));
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '']);
  if (pid === undefined) throw new Error('could not start a process');
  return pid;
}

/** A process that stays alive until killed, and resolves once it runs. */
async function liveProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((resolve) => child.stdout?.once('data', resolve));
  return child;
}

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

describe('the lock on an embedded database directory', () => {
  it('refuses a second opening of the same directory while the first is open, and allows it after close', async () => {
    const dataDir = await existingDataDir();
    const first = await openDatabase({ databaseUrl: null, dataDir });
    try {
      expect(lockContent(dataDir)).toEqual({ pid: process.pid, socket: null });
      const second = openDatabase({ databaseUrl: null, dataDir });
      await expect(second).rejects.toBeInstanceOf(DataDirectoryInUse);
      await expect(second).rejects.toThrow(
        `data directory ${dataDir} is in use by process ${process.pid} (the service?); ` +
          'stop it, or use DATABASE_URL for PostgreSQL',
      );
      // The refused opening did not disturb the first: it still reads and writes.
      await first.dataSource.query('CREATE TABLE still_open (n int)');
    } finally {
      await first.close();
    }
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);

    const again = await openDatabase({ databaseUrl: null, dataDir });
    try {
      await expect(again.dataSource.query('SELECT count(*)::int AS n FROM still_open')).resolves.toEqual([
        { n: 0 },
      ]);
    } finally {
      await again.close();
    }
  }, 60_000);

  // The lock itself: that opening a directory takes it is the first test's (openDatabase calls
  // acquireDataDirLock), and opening one on disk costs about a second of CPU.
  it('takes over a lock left by a process that is gone', () => {
    const dataDir = newDataDir();
    writeFileSync(
      join(dataDir, LOCK_FILE),
      JSON.stringify({ pid: deadPid(), socket: '/nowhere/.s.PGSQL.5432' }),
    );
    expect(readDataDirOwner(dataDir)).toBeNull();

    const lock = acquireDataDirLock(dataDir);
    expect(lockContent(dataDir)).toEqual({ pid: process.pid, socket: null });
    lock.release();
  });

  it('refuses while another live process holds the lock, and takes it once that process is gone', async () => {
    const dataDir = newDataDir();
    const other = await liveProcess();
    try {
      writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: other.pid, socket: '/run/x.sock' }));
      expect(readDataDirOwner(dataDir)).toEqual({ pid: other.pid, socket: '/run/x.sock' });
      expect(() => acquireDataDirLock(dataDir)).toThrow(`is in use by process ${other.pid} (the service?)`);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
    }
    const lock = acquireDataDirLock(dataDir);
    expect(lockContent(dataDir)).toEqual({ pid: process.pid, socket: null });
    lock.release();
  });

  it('takes over a lock naming this process that this process does not hold (an earlier run with the same pid)', () => {
    const dataDir = newDataDir();
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: process.pid, socket: null }));
    const lock = acquireDataDirLock(dataDir);
    expect(() => acquireDataDirLock(dataDir)).toThrow(DataDirectoryInUse);
    lock.release();
  });

  it('takes over a lock file that cannot be read as a lock', () => {
    const dataDir = newDataDir();
    writeFileSync(join(dataDir, LOCK_FILE), 'not json');
    const lock = acquireDataDirLock(dataDir);
    expect(lockContent(dataDir)).toEqual({ pid: process.pid, socket: null });
    lock.release();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('records the socket of the owner, and leaves no temporary files behind', () => {
    const dataDir = newDataDir();
    const lock = acquireDataDirLock(dataDir);
    lock.setSocket('/tmp/some.sock');
    expect(lockContent(dataDir)).toEqual({ pid: process.pid, socket: '/tmp/some.sock' });
    lock.setSocket(null);
    expect(lockContent(dataDir)).toEqual({ pid: process.pid, socket: null });
    lock.release();
    lock.release();
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
