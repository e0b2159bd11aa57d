import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { LOCK_FILE } from '../../../src/infrastructure/persistence/data-dir-lock';
import { openDatabase } from '../../../src/infrastructure/persistence/database';
import { SOCKET_NAME } from '../../../src/infrastructure/persistence/database-socket-path';
import { type ServedProcess, startService } from '../reliability/served-process';
import { testDatabases } from '../../support/databases';
import { personRecord } from './import-files';
import { migratedDataDir, serviceBuild } from '../../support/run-artifacts';

const ROOT = join(__dirname, '../../..');
const PASSWORD = 'a long password';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let build: Awaited<ReturnType<typeof serviceBuild>>;
let tool: string;
const running: ServedProcess[] = [];
const temporary: string[] = [];

function newDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(directory);
  return directory;
}

/** A new DATA_DIR holding a migrated database, as a service that ran before leaves it. */
async function newDataDir(prefix: string): Promise<string> {
  const directory = await migratedDataDir(prefix);
  temporary.push(directory);
  return directory;
}

async function serve(dataDir: string): Promise<ServedProcess> {
  const service = await startService(build.main, { DATA_DIR: dataDir });
  running.push(service);
  return service;
}

let shared: { dataDir: string; service: ServedProcess } | undefined;

/**
 * One service, with the test traps, for the tests that need nothing but a service running beside
 * the tool: each uses accounts and people of its own. Stopped after the file's last test.
 */
async function sharedService(): Promise<{ dataDir: string; service: ServedProcess }> {
  if (shared === undefined) {
    const dataDir = await newDataDir('beside-shared-');
    const service = await startService(build.main, { DATA_DIR: dataDir });
    shared = { dataDir, service };
    await sql(dataDir, TRAPS);
  }
  return shared;
}

async function stop(service: ServedProcess): Promise<number | null> {
  service.child.kill('SIGTERM');
  return (await service.exited).code;
}

/** Starts the built tool as its own process, as `npm run cli -- ...` would. */
function startTool(
  args: string[],
  options: { dataDir: string; cwd?: string; input?: string; env?: Record<string, string> },
): { child: ChildProcess; done: Promise<Run>; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [tool, ...args], {
    cwd: options.cwd ?? ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: options.dataDir,
      BCRYPT_COST: '4',
      LOG_LEVEL: 'silent',
      TOOL_PASSWORD: PASSWORD,
      ...options.env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdin?.end(options.input ?? '');
  const done = new Promise<Run>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i += 1) await sleep(25);
  expect(condition()).toBe(true);
}

function runTool(args: string[], options: Parameters<typeof startTool>[1]): Promise<Run> {
  return startTool(args, options).done;
}

function url(service: ServedProcess, path: string): string {
  return `http://127.0.0.1:${service.port}${path}`;
}

async function issueKey(service: ServedProcess, username: string, password = PASSWORD): Promise<Response> {
  return fetch(url(service, '/keys'), {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
  });
}

/** An account made with the tool, and a key of it from the service. */
async function keyHolder(service: ServedProcess, dataDir: string, username: string): Promise<string> {
  const created = await runTool(
    [
      'accounts',
      'create',
      '--username',
      username,
      '--permissions',
      'read,write',
      '--password-env',
      'TOOL_PASSWORD',
    ],
    { dataDir },
  );
  expect(created.code).toBe(0);
  const key = await issueKey(service, username);
  expect(key.status).toBe(201);
  return ((await key.json()) as { token: string }).token;
}

function get(service: ServedProcess, path: string, token: string): Promise<Response> {
  return fetch(url(service, path), { headers: { Authorization: `Bearer ${token}` } });
}

/** SQL straight on the service's database, through its socket, as psql -h DATA_DIR would. */
async function sql(
  dataDir: string,
  text: string,
  values: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A trigger for tests only: the person named Explode fails an import, Sleepy makes it wait. */
const TRAPS = `
  CREATE FUNCTION test_traps() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.first_name = 'Explode' THEN RAISE EXCEPTION 'exploded on purpose'; END IF;
    IF NEW.first_name = 'Sleepy' THEN PERFORM pg_sleep(3); END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER test_traps BEFORE INSERT ON people FOR EACH ROW EXECUTE FUNCTION test_traps();`;

function importFile(
  directory: string,
  tag: string,
  count: number,
  special: Record<number, string> = {},
): string {
  const records = Array.from({ length: count }, (_, i) =>
    personRecord(tag, i, special[i] === undefined ? {} : { first_name: special[i] }),
  );
  const file = join(directory, `${tag}.json`);
  writeFileSync(file, JSON.stringify(records));
  return file;
}

async function countPeople(service: ServedProcess, token: string, lastName: string): Promise<number> {
  const response = await get(service, `/people?last_name=${encodeURIComponent(lastName)}`, token);
  expect(response.status).toBe(200);
  return ((await response.json()) as unknown[]).length;
}

// Embedded only: skipped in the PostgreSQL stage (TEST_DATABASES=postgres).
const embedded = testDatabases.some((target) => target.name === 'pglite');

(embedded ? describe : describe.skip)(
  'the command-line tool beside the running service on the embedded database',
  () => {
    beforeAll(async () => {
      build = await serviceBuild('beside-the-service');
      tool = build.cli;
    }, 180_000);

    afterEach(() => {
      for (const service of running.splice(0))
        if (service.child.exitCode === null) service.child.kill('SIGKILL');
    });

    afterAll(async () => {
      if (shared !== undefined) expect(await stop(shared.service)).toBe(0);
      build?.remove();
      for (const directory of temporary) rmSync(directory, { recursive: true, force: true });
    });

    it('connects to the service, whose answers show its changes at once and keep them after a restart', async () => {
      const dataDir = await newDataDir('beside-');
      const service = await serve(dataDir);

      // Only this OS user may connect.
      const socket = join(dataDir, SOCKET_NAME);
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toEqual({
        pid: service.child.pid,
        socket,
      });

      const demo = await runTool(['demo'], { dataDir });
      expect(demo).toMatchObject({
        code: 0,
        stderr: `using the embedded database in ${dataDir}, through the service (process ${service.child.pid})\n`,
      });
      const password = /^password: (\S+)$/m.exec(demo.stdout)?.[1] ?? '';
      const key = await issueKey(service, 'demo', password);
      expect(key.status).toBe(201);
      const { token } = (await key.json()) as { token: string };
      const listed = (await (await get(service, '/people', token)).json()) as unknown[];
      expect(listed.length).toBeGreaterThan(20);

      const created = await runTool(['accounts', 'create', '--username', 'desk', '--permissions', 'read'], {
        dataDir,
        input: `${PASSWORD}\n`,
      });
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(/^created the account "desk"/);
      expect((await issueKey(service, 'desk')).status).toBe(201);

      // FILE is relative to where the tool runs, or, through npm, to where the user was.
      const workDir = newDirectory('beside-cwd-');
      expect((await runTool(['export', 'people.json'], { dataDir, cwd: workDir })).code).toBe(0);
      expect(
        (JSON.parse(readFileSync(join(workDir, 'people.json'), 'utf8')) as unknown[]).length,
      ).toBeGreaterThan(listed.length);
      const throughNpm = await runTool(['export', 'npm.json'], {
        dataDir,
        env: { npm_lifecycle_event: 'cli', INIT_CWD: workDir },
      });
      expect(throughNpm.code).toBe(0);
      expect(existsSync(join(workDir, 'npm.json'))).toBe(true);
      expect(existsSync(join(ROOT, 'npm.json'))).toBe(false);

      const missing = await runTool(['import', 'absent.json'], { dataDir, cwd: workDir });
      expect(missing).toMatchObject({ code: 1, stdout: '' });
      expect(missing.stderr).toContain(`error: cannot read absent.json: no such file\n`);
      expect((await runTool(['migrate'], { dataDir })).stdout).toBe('the database is up to date\n');

      // A tool that knows a migration the running service has not applied leaves the schema alone.
      const [last] = await sql(
        dataDir,
        'DELETE FROM migrations WHERE id = (SELECT max(id) FROM migrations) RETURNING *',
      );
      expect(await runTool(['accounts', 'list'], { dataDir })).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `using the embedded database in ${dataDir}, through the service (process ${service.child.pid})\n` +
          `error: the running service (process ${service.child.pid}) is older than this tool: restart it, ` +
          'which brings the database up to date, then run the command again\n',
      });
      await sql(dataDir, 'INSERT INTO migrations (id, timestamp, name) VALUES ($1, $2, $3)', [
        last.id,
        last.timestamp,
        last.name,
      ]);

      // With every connection taken (psql sessions, say), a command waits for one to close.
      const sessions = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const client = new pg.Client({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres' });
          await client.connect();
          return client;
        }),
      );
      const queued = startTool(['accounts', 'list'], { dataDir });
      await until(() => queued.stderr().includes('waiting for'));
      await sessions[0].end();
      expect(await queued.done).toMatchObject({
        code: 0,
        stderr:
          `waiting for the service (process ${service.child.pid}), which takes no more connections now\n` +
          `using the embedded database in ${dataDir}, through the service (process ${service.child.pid})\n`,
      });
      await Promise.all(sessions.slice(1).map((client) => client.end()));

      // A second service on the same directory is refused, and the first keeps serving.
      const second = spawnSync(process.execPath, [build.main], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0' },
        encoding: 'utf8',
      });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`is in use by process ${service.child.pid}`);
      expect(((await (await get(service, '/people', token)).json()) as unknown[]).length).toBe(listed.length);

      expect(await stop(service)).toBe(0);
      expect(existsSync(socket)).toBe(false);
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);

      // Nothing the tool wrote through the service was lost.
      const restarted = await serve(dataDir);
      const again = await issueKey(restarted, 'demo', password);
      expect(again.status).toBe(201);
      const { token: newToken } = (await again.json()) as { token: string };
      expect(await (await get(restarted, '/people', newToken)).json()).toEqual(listed);
      expect((await issueKey(restarted, 'desk')).status).toBe(201);
      expect(await stop(restarted)).toBe(0);

      // With no service running, the tool opens the directory itself.
      const alone = await runTool(['accounts', 'list'], { dataDir });
      expect(alone).toMatchObject({ code: 0, stderr: `using the embedded database in ${dataDir}\n` });
      expect(alone.stdout).toMatch(/^desk\s+admin\s+read/m);
    }, 300_000);

    it("shows an account disabled or enabled, and a permission revoked, on the service's very next request", async () => {
      const { dataDir, service } = await sharedService();
      const token = await keyHolder(service, dataDir, 'bot');

      // Each change shows on the request sent the moment the tool reports it, while requests
      // before it keep the service's cache of the key warm.
      const nextAnswerAfter = async (args: string[], printed: string): Promise<number> => {
        const run = startTool(args, { dataDir });
        let status = 0;
        while (status === 0) {
          if (run.stdout().includes(printed)) status = (await get(service, '/people?limit=1', token)).status;
          else {
            // Before the change, or already after it: the tool prints once it has committed.
            await get(service, '/people?limit=1', token);
            await sleep(20);
          }
        }
        expect((await run.done).code).toBe(0);
        return status;
      };
      expect((await get(service, '/people?limit=1', token)).status).toBe(200);
      expect(await nextAnswerAfter(['accounts', 'disable', 'bot'], 'disabled')).toBe(401);
      expect(await nextAnswerAfter(['accounts', 'enable', 'bot'], 'enabled')).toBe(200);
      // Without the permission it needs, the key is refused with 401 (SPEC §3).
      expect(await nextAnswerAfter(['accounts', 'revoke', 'bot', 'read'], 'revoked')).toBe(401);
    }, 120_000);

    it('syncs and erases through the service, whose next answers show it', async () => {
      const { dataDir, service } = await sharedService();
      const token = await keyHolder(service, dataDir, 'secretary');
      const loaded = await runTool(['import', importFile(dataDir, 'sync', 3)], { dataDir });
      expect(loaded.stdout).toMatch(/: 3 added, 0 updated, 0 unchanged, 0 erased/);
      const exported = join(dataDir, 'roster.json');
      expect((await runTool(['export', exported], { dataDir })).code).toBe(0);
      const roster = (
        JSON.parse(readFileSync(exported, 'utf8')) as { id: number; role: string; last_name: string }[]
      ).filter((r) => r.role === 'member' && r.last_name.startsWith('Lastsyncx'));
      const [first, second, third] = roster;
      const edited = join(dataDir, 'edited.json');
      writeFileSync(edited, JSON.stringify([{ ...first, last_name: 'Renamed' }, second, third]));

      const dry = await runTool(['import', edited, '--dry-run'], { dataDir });
      expect(dry.stdout).toContain(`person ${first.id}: last_name: "${first.last_name}" -> "Renamed"`);
      expect(await countPeople(service, token, 'Renamed')).toBe(0);
      const synced = await runTool(['import', edited], { dataDir });
      expect(synced.stdout).toMatch(/: 0 added, 1 updated, 2 unchanged, 0 erased/);
      expect(await countPeople(service, token, 'Renamed')).toBe(1);

      const erased = await runTool(['people', 'erase', String(second.id)], { dataDir });
      expect(erased).toMatchObject({ code: 0, stdout: `erased person ${second.id}\n` });
      expect((await get(service, `/people/${second.id}`, token)).status).toBe(404);
      const held = await runTool(
        [
          'accounts',
          'create',
          '--username',
          'member3',
          '--person-id',
          String(third.id),
          '--permissions',
          'read',
          '--password-env',
          'TOOL_PASSWORD',
        ],
        { dataDir },
      );
      expect(held.code).toBe(0);
      const memberKey = ((await (await issueKey(service, 'member3')).json()) as { token: string }).token;
      expect((await get(service, '/keys', memberKey)).status).toBe(200);
      expect((await runTool(['people', 'erase', String(third.id), '--yes'], { dataDir })).code).toBe(0);
      expect((await get(service, '/keys', memberKey)).status).toBe(401);
      const data = await runTool(['people', 'export-data', String(third.id)], { dataDir });
      expect(JSON.parse(data.stdout)).toMatchObject({
        person: { erased: true },
        account: { disabled: true },
      });
    }, 120_000);

    it('loses no write when HTTP and the tool write at once, and keeps nothing of what the tool rolls back', async () => {
      const { dataDir, service } = await sharedService();
      const token = await keyHolder(service, dataDir, 'writer');
      await runTool(['import', importFile(dataDir, 'seed', 1)], { dataDir });
      const [{ id }] = (await (await get(service, '/people?last_name=LastseedX0', token)).json()) as {
        id: number;
      }[];
      const before = (await get(service, `/people/${id}`, token)).headers.get('etag');

      const imports = Promise.all([
        runTool(['import', importFile(dataDir, 'bulk', 3000)], { dataDir }),
        // Fails in its third batch of a thousand, after writing two.
        runTool(['import', importFile(dataDir, 'failing', 3000, { 2500: 'Explode' })], { dataDir }),
        runTool(['accounts', 'create', '--username', 'late', '--password-env', 'TOOL_PASSWORD'], { dataDir }),
      ]);
      let patched = 0;
      let toolsDone = false;
      void imports.then(() => {
        toolsDone = true;
      });
      while (!toolsDone || patched < 10) {
        const response = await fetch(url(service, `/people/${id}`), {
          method: 'PATCH',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ person: { first_name: `Patch${patched}` } }),
        });
        expect(response.status).toBe(200);
        patched += 1;
      }
      const [bulk, failing, late] = await imports;

      expect(bulk.code).toBe(0);
      expect(failing).toMatchObject({ code: 1 });
      expect(failing.stderr).toContain('error: the database could not complete the operation');
      expect(late.code).toBe(0);
      // Every PATCH counted once in the person's version, and the last one is what it says.
      const after = await get(service, `/people/${id}`, token);
      const version = (tag: string | null) => Number(/^"v(\d+)-/.exec(tag ?? '')?.[1]);
      expect(version(after.headers.get('etag'))).toBe(version(before) + patched);
      expect(((await after.json()) as { first_name: string }).first_name).toBe(`Patch${patched - 1}`);
      expect(await countPeople(service, token, 'Lastbulk')).toBe(3000);
      expect(await countPeople(service, token, 'Lastfailing')).toBe(0);
      expect((await issueKey(service, 'late')).status).toBe(201);
    }, 180_000);

    it("plans an import's checks afresh, not with what the service's session cached while the directory was small", async () => {
      const dataDir = await newDataDir('beside-plans-');
      const service = await serve(dataDir);
      // The demo's inserts make PostgreSQL plan the foreign-key checks on nearly empty tables.
      expect((await runTool(['demo'], { dataDir })).code).toBe(0);
      const imported = await runTool(['import', importFile(dataDir, 'planned', 3000)], { dataDir });
      expect(imported.code).toBe(0);

      await sql(dataDir, 'SELECT pg_stat_force_next_flush()');
      const [{ seq_scan: scans }] = await sql(
        dataDir,
        "SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 'people'",
      );
      // With those plans, each of the 9,000 contacts and memberships would scan the people table.
      expect(Number(scans)).toBeLessThan(500);
      expect(await stop(service)).toBe(0);
    }, 120_000);

    it('leaves the service serving, and nothing of its work, when the tool is killed mid-transaction', async () => {
      const { dataDir, service } = await sharedService();
      const token = await keyHolder(service, dataDir, 'reader');

      // Sleepy holds the tool's transaction open for seconds; a request then waits behind it.
      const run = startTool(['import', importFile(dataDir, 'killed', 2000, { 1500: 'Sleepy' })], { dataDir });
      let waiting: Promise<Response> | null = null;
      while (waiting === null) {
        const request = get(service, '/people?limit=1', token);
        const answered = await Promise.race([request.then(() => true), sleep(500).then(() => false)]);
        if (!answered) waiting = request;
        expect(run.child.exitCode).toBeNull();
      }
      run.child.kill('SIGKILL');

      const started = performance.now();
      expect((await waiting).status).toBe(200);
      // The statement running when it was killed ends (the trap's three seconds at most); then its
      // transaction is rolled back and the requests go on.
      expect(performance.now() - started).toBeLessThan(4000);
      expect(await countPeople(service, token, 'Lastkilled')).toBe(0);
      expect((await runTool(['accounts', 'list'], { dataDir })).code).toBe(0);
    }, 120_000);

    it('starts the service once a command that had the directory to itself has finished', async () => {
      const dataDir = await newDataDir('beside-order-');
      // Set up without the service, as before a volunteer's first import.
      const setup = await openDatabase({ databaseUrl: null, dataDir });
      await setup.dataSource.query(TRAPS);
      await setup.close();
      const account = await runTool(
        [
          'accounts',
          'create',
          '--username',
          'early',
          '--permissions',
          'read',
          '--password-env',
          'TOOL_PASSWORD',
        ],
        { dataDir },
      );
      expect(account.code).toBe(0);
      // Sleepy keeps the command running for seconds, so the service surely starts meanwhile.
      const file = importFile(dataDir, 'first', 2000, { 10: 'Sleepy' });

      const run = startTool(['import', file], { dataDir });
      // The tool holds the directory (its own lock) before the service is started.
      await until(() => {
        const lock = existsSync(join(dataDir, LOCK_FILE)) && readFileSync(join(dataDir, LOCK_FILE), 'utf8');
        return lock !== false && JSON.parse(lock).pid === run.child.pid;
      });
      // Another command started meanwhile waits its turn too.
      const second = startTool(['accounts', 'list'], { dataDir });
      const service = await serve(dataDir);
      expect((await run.done).code).toBe(0);
      const listed = await second.done;
      expect(listed.code).toBe(0);
      expect(listed.stderr).toContain(
        `waiting for process ${run.child.pid}, which has the embedded database in ${dataDir} open ` +
          '(another command, or the service starting)\n',
      );
      expect(listed.stdout).toMatch(/^early\s+admin\s+read/m);

      expect(service.lines).toContainEqual(
        expect.objectContaining({
          pid: run.child.pid,
          msg: 'a command-line tool has the embedded database open: starting once it has finished',
        }),
      );
      const key = await issueKey(service, 'early');
      const { token } = (await key.json()) as { token: string };
      expect(await countPeople(service, token, 'Lastfirst')).toBe(2000);
    }, 120_000);
  },
);
