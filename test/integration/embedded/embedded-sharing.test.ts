import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import pino from 'pino';
import request from 'supertest';
import { type Database, openDatabase } from '../../../src/infrastructure/persistence/database';
import { type DatabaseServer, serveDatabase } from '../../../src/infrastructure/embedded/serve-database';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { migratedDataDir } from '../../support/run-artifacts';

const IDLE_MS = 1500;
const PSQL = '/usr/bin/psql';
const PG_DUMP = '/usr/bin/pg_dump';

// Embedded only: skipped in the PostgreSQL stage (TEST_DATABASES=postgres).
const pglite = testDatabases.find((target) => target.name === 'pglite');

/*
 * Tools connected to the running service's embedded database (psql, pg_dump, a pg client as the
 * command-line tool is one) do what tools do with their sessions; the service's authenticated
 * requests must answer exactly as before, whatever a tool has set, and without waiting long.
 */
(pglite === undefined ? describe.skip : describe)('tools on the embedded database beside the service', () => {
  let dataDir: string;
  let database: Database;
  let server: DatabaseServer;
  let t: TestApp;
  let token: string;
  let personId: number;
  let email: string;
  let lastName: string;
  /** What GET /people/:id answered before any tool came. */
  let expected: Record<string, unknown>;
  const clients: pg.Client[] = [];
  const children: ChildProcessWithoutNullStreams[] = [];

  beforeAll(async () => {
    dataDir = await migratedDataDir('sharing-');
    database = await openDatabase({ databaseUrl: null, dataDir });
    server = await serveDatabase(database, { logger: pino({ level: 'silent' }), idleMs: IDLE_MS });
    t = await createTestApp({ name: 'pglite', url: null }, { database });
    token = await t.tokenWith(['read', 'write']);
    email = `${uniqueName('grace')}@example.org`;
    // A backslash: with standard_conforming_strings off it would be an escape in a literal.
    lastName = `${uniqueName('Hop')}\\per`;
    personId = await t.addPerson({
      firstName: 'Grace',
      lastName,
      chatId: uniqueName('chat'),
      contacts: [{ kind: 'email', value: email, label: null }],
      memberships: [{ club: 'Astronomers', kind: 'full', startDate: '2020-02-03', endDate: null }],
    });
    const answer = await read();
    expect(answer.status).toBe(200);
    expected = answer.body;
    // Dates as the API gives them, whatever DateStyle a tool chose.
    expect(JSON.stringify(expected)).toContain('"2020-02-03"');
  }, 60_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.end().catch(() => undefined)));
    for (const child of children.splice(0)) child.kill();
  });

  afterAll(async () => {
    await server?.close();
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const read = () => request(t.app).get(`/people/${personId}`).set('Authorization', `Bearer ${token}`);

  /** The service's authenticated requests answer as before: reads, searches and a write. */
  async function expectServiceServes(): Promise<void> {
    const one = await read();
    expect(one.status).toBe(200);
    expect(one.body).toEqual(expected);
    const byEmail = await request(t.app)
      .get(`/people?email=${encodeURIComponent(email.toUpperCase())}`)
      .set('Authorization', `Bearer ${token}`);
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toEqual([expected]);
    const byName = await request(t.app)
      .get(`/people?last_name=${encodeURIComponent(lastName.slice(-5))}&active=yes`)
      .set('Authorization', `Bearer ${token}`);
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual([expected]);
    const chatId = uniqueName('chat');
    const written = await request(t.app)
      .patch(`/people/${personId}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ 'person[chat_id]': chatId });
    expect(written.status).toBe(200);
    expected = { ...expected, chat_id: chatId };
    expect(written.body).toEqual(expected);
    expect((await request(t.app).get('/readyz')).status).toBe(200);
  }

  /** A client of the socket, as the command-line tool is. */
  async function tool(): Promise<pg.Client> {
    const client = new pg.Client({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres' });
    client.on('error', () => undefined);
    clients.push(client);
    await client.connect();
    return client;
  }

  /** A one-off psql command, as an operator would type it. */
  function psql(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return run(PSQL, ['-X', '-h', dataDir, '-U', 'postgres', '-d', 'postgres', ...args]);
  }

  function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        command,
        args,
        { timeout: 20_000, env: { ...process.env, PGCONNECT_TIMEOUT: '5' } },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
      );
    });
  }

  /** An interactive psql whose standard input stays open: it ends only when told. */
  function psqlSession(): {
    send: (line: string) => void;
    output: () => string;
    exited: Promise<number | null>;
  } {
    const child = spawn(PSQL, ['-X', '-h', dataDir, '-U', 'postgres', '-d', 'postgres', '-q', '-A', '-t'], {
      env: { ...process.env, PGCONNECT_TIMEOUT: '5' },
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // psql may have gone already (cut off): what it said is in its output.
    child.stdin.on('error', () => undefined);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { send: (line) => child.stdin.write(`${line}\n`), output: () => output, exited };
  }

  async function until(condition: () => boolean, ms = 5000): Promise<void> {
    for (const started = Date.now(); !condition() && Date.now() - started < ms; ) await sleep(20);
    expect(condition()).toBe(true);
  }

  it('`psql -c "SET search_path = \'\'"` (issue 27) leaves every request answering', async () => {
    const result = await psql('-c', "SET search_path = ''");
    expect(result).toMatchObject({ code: 0, stderr: '' });
    await expectServiceServes();
  });

  it('keeps the settings a tool sets its own: the service never runs under them, the tool always does', async () => {
    const client = await tool();
    await client.query(`SET search_path = ''; SET DateStyle = 'SQL, DMY'; SET TimeZone = 'Pacific/Kiritimati';
      SET standard_conforming_strings = off; SET statement_timeout = 1; SET lock_timeout = 1;
      SET default_transaction_read_only = on; SET session_replication_role = replica;
      SET extra_float_digits = -15; SET bytea_output = escape; SET IntervalStyle = sql_standard`);
    await expectServiceServes();
    const shown = await client.query(
      "SELECT current_setting('search_path') AS path, current_setting('DateStyle') AS style, current_setting('transaction_read_only') AS ro",
    );
    expect(shown.rows).toEqual([{ path: '""', style: 'SQL, DMY', ro: 'on' }]);

    // Statement by statement, the service's requests and the tool's in between each other.
    const service = (async () => {
      for (let i = 0; i < 8; i += 1) await expectServiceServes();
    })();
    const theTool = (async () => {
      for (let i = 0; i < 40; i += 1) {
        const { rows } = await client.query(
          "SELECT current_setting('search_path') AS path, now()::text AS now",
        );
        expect(rows[0].path).toBe('""');
        expect(rows[0].now).toMatch(/\+14$/);
        await client.query(`SET search_path = ''`);
      }
    })();
    await Promise.all([service, theTool]);
  });

  it("keeps two tools' settings apart from each other, turn after turn", async () => {
    const one = await tool();
    const two = await tool();
    await one.query("SET TimeZone = 'Pacific/Kiritimati'; SET application_name = 'one'");
    await two.query("SET TimeZone = 'Pacific/Pago_Pago'");
    for (let i = 0; i < 5; i += 1) {
      const [a, b] = await Promise.all([
        one.query("SELECT current_setting('TimeZone') AS zone, current_setting('application_name') AS name"),
        two.query("SELECT current_setting('TimeZone') AS zone, current_setting('application_name') AS name"),
      ]);
      expect(a.rows).toEqual([{ zone: 'Pacific/Kiritimati', name: 'one' }]);
      expect(b.rows).toEqual([{ zone: 'Pacific/Pago_Pago', name: '' }]);
      await expectServiceServes();
    }
  });

  it('resets the session for the service even when nothing in what a tool sent says SET', async () => {
    const client = await tool();
    await client.query(`CREATE FUNCTION pg_temp.breaker() RETURNS void LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_catalog.set_config('search_path', '', false);
        PERFORM pg_catalog.set_config('default_transaction_read_only', 'on', false); END $$`);
    await expectServiceServes();
    // The call's text names no setting: the gate cannot tell that it changed any.
    await client.query('SELECT pg_temp.breaker()');
    await expectServiceServes();
  });

  it("keeps a tool's SET ROLE and SET SESSION AUTHORIZATION its own, and ends them with its session", async () => {
    const role = `sharing_${process.pid}`;
    const admin = await tool();
    await admin.query(`CREATE ROLE ${role}_a; CREATE ROLE ${role}_b`);
    try {
      const asRole = await tool();
      await asRole.query(`SET ROLE ${role}_a`);
      const asSession = await tool();
      await asSession.query(`SET SESSION AUTHORIZATION ${role}_b`);
      await expectServiceServes();
      // Neither role may read the tables: the service would answer 500 under either.
      await expect(asRole.query('SELECT count(*) FROM people')).rejects.toMatchObject({ code: '42501' });
      await expectServiceServes();
      expect((await asRole.query('SELECT current_user AS who')).rows).toEqual([{ who: `${role}_a` }]);
      expect((await asSession.query('SELECT session_user AS who')).rows).toEqual([{ who: `${role}_b` }]);
      await expectServiceServes();

      await asRole.end();
      await asSession.end();
      const next = await tool();
      expect((await next.query('SELECT session_user AS s, current_user AS c')).rows).toEqual([
        { s: 'postgres', c: 'postgres' },
      ]);
    } finally {
      await admin.query(`DROP ROLE ${role}_a; DROP ROLE ${role}_b`);
    }
  });

  it("never lets a tool's temporary tables stand in for the service's, and drops them with its session", async () => {
    const client = await tool();
    await client.query(`CREATE TEMP TABLE api_keys (token_hash text);
      CREATE TEMP TABLE people (id int); CREATE TEMP TABLE contacts (id int);
      CREATE TEMP TABLE memberships (id int); CREATE TEMP TABLE clubs (id int)`);
    await client.query('INSERT INTO people VALUES (1), (2)');
    await expectServiceServes();
    // The tool sees its own tables where it left them (its search path puts pg_temp first).
    await client.query('SET search_path = public');
    expect((await client.query('SELECT count(*)::int AS n FROM people')).rows).toEqual([{ n: 2 }]);
    await expectServiceServes();

    await client.end();
    const next = await tool();
    const { rows } = await next.query("SELECT to_regclass('pg_temp.people') AS left_behind");
    expect(rows).toEqual([{ left_behind: null }]);
  });

  it("keeps the service answering when a tool deallocates every prepared statement, and drops the tool's own with its session", async () => {
    // The service's lookups are prepared statements in the one session the tools share.
    await expectServiceServes();
    const client = await tool();
    await client.query('DEALLOCATE ALL');
    await expectServiceServes();
    await client.query('PREPARE tool_statement AS SELECT 1');
    await client.end();

    const next = await tool();
    const { rows } = await next.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
    const names = rows.map((row) => row.name);
    expect(names).not.toContain('tool_statement');
    expect(names).toContainEqual(expect.stringMatching(/^read_/));
    await expectServiceServes();
  });

  it('cuts off a psql idle in a transaction once the service has waited its bound, rolls it back and tells it', async () => {
    const session = psqlSession();
    session.send('BEGIN;');
    session.send('CREATE TABLE left_open (n int);');
    session.send("SELECT 'began';");
    await until(() => session.output().includes('began'));

    const started = performance.now();
    await expectServiceServes();
    const waited = performance.now() - started;
    expect(waited).toBeLessThan(IDLE_MS + 1500);

    session.send('SELECT 1;');
    session.send('\\q');
    await session.exited;
    expect(session.output()).toContain('idle-in-transaction timeout');
    const { rows } = await (await tool()).query("SELECT to_regclass('public.left_open') AS t");
    expect(rows).toEqual([{ t: null }]);
  });

  it('tells a pg client cut off in its transaction why, with the code PostgreSQL uses', async () => {
    const client = await tool();
    await client.query('BEGIN');
    await client.query('SELECT 1');
    const cut = new Promise<Error & { code?: string }>((resolve) => client.once('error', resolve));
    await expectServiceServes();
    expect(await cut).toMatchObject({ code: '25P03' });
  });

  it('lets a psql stay connected and idle for as long as it likes without the service waiting', async () => {
    const session = psqlSession();
    session.send("SET search_path = '';");
    session.send("SELECT 'ready';");
    await until(() => session.output().includes('ready'));
    const until_ = Date.now() + IDLE_MS * 1.5;
    while (Date.now() < until_) {
      const started = performance.now();
      await expectServiceServes();
      expect(performance.now() - started).toBeLessThan(1000);
    }
    session.send('SHOW search_path;');
    session.send('\\q');
    expect(await session.exited).toBe(0);
    expect(session.output()).toContain('""');
  });

  it("the system's pg_dump, refused on the version, leaves the service answering", async () => {
    if (!existsSync(PG_DUMP)) return;
    const result = await run(PG_DUMP, ['-h', dataDir, '-U', 'postgres', '-d', 'postgres', '--schema-only']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('server version');
    await expectServiceServes();
  });

  it('GET /readyz answers 503 while a tool has renamed a table the requests use, 200 once it is back', async () => {
    await psql('-c', 'ALTER TABLE api_keys RENAME TO api_keys_away');
    try {
      expect((await request(t.app).get('/readyz')).status).toBe(503);
    } finally {
      await psql('-c', 'ALTER TABLE api_keys_away RENAME TO api_keys');
    }
    await expectServiceServes();
  });
});
