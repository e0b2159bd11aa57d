import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../../src/cli/run-cli';
import { heldDataDirLock, LOCK_FILE } from '../../../src/infrastructure/embedded/data-dir-lock';
import { type Database, migrate, openDatabase } from '../../../src/infrastructure/persistence/database';
import { DataDirectoryNotPrivate } from '../../../src/infrastructure/embedded/private-data-dir';
import { openToOthers } from '../../support/file-modes';
import { migratedSnapshot } from '../../support/pglite-snapshot';
import { copyMigratedDataDir } from '../../support/run-artifacts';

const mode = (path: string) => statSync(path).mode & 0o777;

/**
 * A database written to, so that PostgreSQL creates new files after start, then closed; a new one
 * starts from `loadDataDir` (see openNewDatabase).
 */
async function useDatabase(
  dataDir: string,
  loadDataDir?: Blob,
): Promise<{ openWhileRunning: string[]; opened: Database['dataDir'] }> {
  const database = await openDatabase({ databaseUrl: null, dataDir, loadDataDir });
  try {
    await migrate(database);
    await database.dataSource.query('CREATE TABLE IF NOT EXISTS scratch (note text)');
    await database.dataSource.query(
      "INSERT INTO scratch SELECT repeat('x', 200) FROM generate_series(1, 50000)",
    );
    await database.dataSource.query('CHECKPOINT');
    return { openWhileRunning: openToOthers(dataDir), opened: database.dataDir };
  } finally {
    await database.close();
  }
}

const onPosix = process.platform === 'win32' ? describe.skip : describe;

onPosix('the embedded database directory is the service user’s alone', () => {
  let parent: string;
  let savedUmask: number;

  beforeAll(() => {
    // The usual umask, under which PGlite left its files readable by everyone.
    savedUmask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(savedUmask);
  });
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'private-data-dir-'));
    chmodSync(parent, 0o755);
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  /**
   * Opens a directory with no database yet, as the service would, but fills it from the run's
   * snapshot rather than by initdb (5-8 s of CPU): what these tests check is what happens to the
   * directory before and after the database is made. The files initdb makes are checked in
   * cli/process.test, where the tool creates a database on its first run.
   */
  async function openNewDatabase(dataDir: string): Promise<Database> {
    return openDatabase({ databaseUrl: null, dataDir, loadDataDir: await migratedSnapshot() });
  }

  /**
   * parent/data holding a database made earlier (a copy of the run's migrated one: creating one is
   * the first tests' subject, not these).
   */
  async function existingDatabase(): Promise<string> {
    const dataDir = join(parent, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    await copyMigratedDataDir(dataDir);
    return dataDir;
  }

  it('creates a missing DATA_DIR 0700, and nothing in it is open to others, files made after start included; says whether it created the database', async () => {
    const dataDir = join(parent, 'nested', 'data');

    const first = await useDatabase(dataDir, await migratedSnapshot());
    expect(first.opened).toEqual({ path: dataDir, created: true, tightened: false });
    expect(mode(dataDir)).toBe(0o700);
    expect(first.openWhileRunning).toEqual([]);
    expect(openToOthers(dataDir)).toEqual([]);

    // A second start rewrites PostgreSQL's caches, and the new tables' files grow.
    const second = await useDatabase(dataDir);
    expect(second.opened).toEqual({ path: dataDir, created: false, tightened: false });
    expect(second.openWhileRunning).toEqual([]);
    expect(openToOthers(dataDir)).toEqual([]);
    expect(mode(dataDir)).toBe(0o700);
  }, 90_000);

  it('keeps private the lock file, which the service rewrites while it runs', async () => {
    const dataDir = await existingDatabase();
    const database = await openDatabase({ databaseUrl: null, dataDir });
    try {
      heldDataDirLock(dataDir)?.setSocket(join(dataDir, '.s.PGSQL.5432'));
      expect(openToOthers(dataDir)).toEqual([]);
    } finally {
      await database.close();
    }
  }, 90_000);

  it('tightens an existing database directory that others could open, and the files in it', async () => {
    const dataDir = await existingDatabase();
    // As an earlier version of the service left it.
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'PG_VERSION'), 0o666);
    chmodSync(join(dataDir, 'base'), 0o755);

    const database = await openDatabase({ databaseUrl: null, dataDir });
    await database.close();

    expect(database.dataDir?.tightened).toBe(true);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, 'PG_VERSION'))).toBe(0o600);
    expect(openToOthers(dataDir)).toEqual([]);
  }, 60_000);

  it('tightens an empty existing directory before creating the database in it', async () => {
    const dataDir = join(parent, 'empty');
    mkdirSync(dataDir, { mode: 0o777 });
    chmodSync(dataDir, 0o777);

    const database = await openNewDatabase(dataDir);
    await database.close();

    expect(database.dataDir).toMatchObject({ created: true, tightened: true });
    expect(mode(dataDir)).toBe(0o700);
    expect(openToOthers(dataDir)).toEqual([]);
  }, 90_000);

  it('refuses, changing nothing, a directory others can open that holds files other than a database', async () => {
    const dataDir = join(parent, 'home');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'notes.txt'), 'not a database');

    const opening = openDatabase({ databaseUrl: null, dataDir });

    await expect(opening).rejects.toBeInstanceOf(DataDirectoryNotPrivate);
    await expect(opening).rejects.toThrow(
      `data directory ${dataDir} can be opened by other users and holds files that are not a database`,
    );
    expect(mode(dataDir)).toBe(0o755);
    expect(readdirSync(dataDir)).toEqual(['notes.txt']);
  });

  it('uses a private directory that holds other files', async () => {
    const dataDir = join(parent, 'private');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'README'), 'the directory database', { mode: 0o644 });

    const database = await openNewDatabase(dataDir);
    await database.close();

    expect(database.dataDir).toMatchObject({ created: true });
    expect(mode(dataDir)).toBe(0o700);
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
  }, 90_000);

  // Only root can give a directory away to test this.
  (process.getuid?.() === 0 ? it : it.skip)('refuses a directory that belongs to another user', async () => {
    const dataDir = join(parent, 'theirs');
    mkdirSync(dataDir, { mode: 0o700 });
    chownSync(dataDir, 65534, 65534);

    await expect(openDatabase({ databaseUrl: null, dataDir })).rejects.toThrow(
      `data directory ${dataDir} belongs to another user (uid 65534)`,
    );
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('applies the same rule when the command-line tool opens the directory itself', async () => {
    const dataDir = await existingDatabase();
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'PG_VERSION'), 0o644);
    const stderr = new PassThrough();

    const code = await runCli(['accounts', 'list'], {
      stdin: Readable.from([]),
      stdout: new PassThrough(),
      stderr,
      env: { DATA_DIR: dataDir, BCRYPT_COST: '4', LOG_LEVEL: 'silent' },
    });

    expect(code).toBe(0);
    expect(mode(dataDir)).toBe(0o700);
    expect(openToOthers(dataDir)).toEqual([]);
  }, 60_000);
});
