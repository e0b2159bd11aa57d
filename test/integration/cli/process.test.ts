import { spawnSync } from 'node:child_process';
import {
  chmodSync,
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
import pg from 'pg';
import { testDatabases } from '../../support/databases';
import { openToOthers } from '../../support/file-modes';
import { migratedDataDir, NODE_FLAGS, serviceBuild } from '../../support/run-artifacts';

const ROOT = join(__dirname, '../../..');
const postgresUrl = testDatabases.find((target) => target.name === 'postgres')?.url ?? null;
let build: Awaited<ReturnType<typeof serviceBuild>>;
const temporary: string[] = [];

/** A DATA_DIR holding a migrated database, for tests about something other than creating one. */
async function existingDataDir(): Promise<string> {
  const directory = await migratedDataDir('cli-process-');
  temporary.push(directory);
  return directory;
}

/** The built tool, run to its end; `umask` is the process's while it runs (it inherits this one's). */
function run(args: string[], env: Record<string, string> = {}, input = '', umask?: number) {
  const saved = umask === undefined ? undefined : process.umask(umask);
  try {
    const result = spawnSync(process.execPath, [...NODE_FLAGS, build.cli, ...args], {
      cwd: ROOT,
      input,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', BCRYPT_COST: '4', LOG_LEVEL: 'silent', ...env },
      timeout: 60_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    if (saved !== undefined) process.umask(saved);
  }
}

describe('the built command-line tool, run as a process', () => {
  beforeAll(async () => {
    // The run's compiled service (test/support/run-artifacts.ts); npm run cli builds dist/ itself.
    build = await serviceBuild('cli-process');
  }, 180_000);

  afterAll(() => {
    build?.remove();
    for (const directory of temporary) rmSync(directory, { recursive: true, force: true });
  });

  it('prints its help with exit 0, and refuses wrong usage with exit 2 and one line and a hint', () => {
    const home = mkdtempSync(join(tmpdir(), 'cli-home-'));
    temporary.push(home);
    const help = run(['--help'], { HOME: home });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run cli -- <command> \[options\]/);
    // From Node 22.1 the tool keeps its modules' compiled code for its next start, in the user's
    // cache directory (compile-cache.ts).
    const [major, minor] = process.versions.node.split('.').map(Number);
    const cache = join(home, '.cache/membership-directory/node-compile-cache');
    expect(existsSync(cache) && readdirSync(cache).length > 0).toBe(
      major > 22 || (major === 22 && minor >= 1),
    );
    expect(run(['accounts', 'create', '--help']).stdout).toContain('--password-env VAR');

    expect(run(['accounts', 'create', '--frobnicate'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown option --frobnicate\nsee: npm run cli -- accounts create --help\n',
    });
    expect(run([]).code).toBe(2);
  });

  it('runs commands on an embedded database in DATA_DIR, failing with exit 1 and no stack trace', () => {
    const parent = mkdtempSync(join(tmpdir(), 'cli-process-'));
    temporary.push(parent);
    chmodSync(parent, 0o755);
    const dataDir = join(parent, 'nested', 'data');

    // Under the usual umask, PGlite's initdb leaves its files readable by everyone.
    const created = run(
      ['accounts', 'create', '--username', 'ops', '--permissions', 'read'],
      { DATA_DIR: dataDir },
      'long password\n',
      0o022,
    );
    expect(created).toMatchObject({
      code: 0,
      stderr: `created a new, empty embedded database in ${dataDir}; the service sees it only if it runs with this DATA_DIR too\n`,
    });
    expect(created.stdout).toMatch(/^created the account "ops"/);
    // The database initdb made is the tool's user's alone (the rule's other cases, on databases
    // started from the run's snapshot: embedded/private-data-dir.test).
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(openToOthers(dataDir)).toEqual([]);

    // A second process finds the first one's account, and fails on it in a line, without a stack
    // trace. (The list's table is accounts.test's; a missing FILE's message, import.test's.)
    const again = run(['accounts', 'create', '--username', 'ops'], { DATA_DIR: dataDir }, 'long password\n');
    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr: `using the embedded database in ${dataDir}\nerror: the username "ops" is already taken\n`,
    });
  }, 60_000);

  it('reports a bad setting or an unreachable database in one line with exit 1', () => {
    expect(run(['accounts', 'list'], { BCRYPT_COST: 'lots' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: BCRYPT_COST must be a whole number from 4 to 20, not "lots"\n',
    });
    const unreachable = run(['accounts', 'list'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^error: the database cannot be reached[^\n]*\n$/);
  }, 60_000);

  // That a new database's notice goes to standard error too is the test above's (accounts create).
  it('says on standard error which database it uses, keeping standard output for the export', async () => {
    const dataDir = await existingDataDir();
    const exported = run(['export'], { DATA_DIR: dataDir });
    expect(exported.code).toBe(0);
    expect(exported.stderr).toBe(`using the embedded database in ${dataDir}\n`);
    expect(JSON.parse(exported.stdout)).toEqual([]);
  }, 60_000);

  // A database of its own, dropped afterwards: the tool migrates the database it is pointed at.
  (postgresUrl === null ? it.skip : it)(
    'names PostgreSQL by host and database, never by its password',
    async () => {
      const name = `cli_process_${process.pid}`;
      const admin = new pg.Client({ connectionString: postgresUrl ?? '' });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${name}"`);
      try {
        const url = new URL(postgresUrl ?? '');
        url.password = 'not-shown';
        url.pathname = `/${name}`;
        const listed = run(['accounts', 'list'], { DATABASE_URL: url.toString() });
        expect(listed.code).toBe(0);
        expect(listed.stderr).toBe(`using PostgreSQL at ${url.host}/${name}\n`);
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.end();
      }
    },
    60_000,
  );

  // One command through npm: every command's FILE is resolved by the same rule (file-arguments.ts),
  // and callerDirectory's unit test checks the directory npm's variables name.
  it('through npm from a subdirectory, reads a relative FILE there, not in the project folder', async () => {
    const dataDir = await existingDataDir();
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    const here = mkdtempSync(join(ROOT, 'test-artifacts', 'cli-cwd-'));
    try {
      writeFileSync(join(here, 'members.json'), JSON.stringify([{ first_name: 'Ada', last_name: 'Byron' }]));
      const imported = spawnSync('npm', ['run', '--silent', 'cli', '--', 'import', 'members.json'], {
        cwd: here,
        encoding: 'utf8',
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', BCRYPT_COST: '4', LOG_LEVEL: 'silent' },
        timeout: 180_000,
      });
      expect(imported.stdout).toMatch(
        new RegExp(`^imported ${join(here, 'members.json')}: 1 added, 0 updated, 0 unchanged, 0 erased`),
      );
    } finally {
      rmSync(here, { recursive: true, force: true });
    }
  }, 360_000);
});
