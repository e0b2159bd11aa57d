import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { runCli } from '../../../src/cli/run-cli';
import {
  connectToDatabaseServer,
  type Database,
  MIGRATIONS,
  openDatabase,
} from '../../../src/infrastructure/persistence/database';
import { type DatabaseServer, serveDatabase } from '../../../src/infrastructure/embedded/serve-database';
import { createTestApp, type TestApp } from '../../support/app';
import { type TestDatabaseTarget, testDatabases } from '../../support/databases';
import { migratedDataDir } from '../../support/run-artifacts';
import { cli } from '../cli/cli-harness';
import { personRecord, tempFile } from '../cli/import-files';
import { asRestored, backupPath, contentsOf, openEmptyDatabase } from './backup-support';

/** The tool as a user runs it: no database handed in, the settings from `env` alone. */
async function tool(
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const capture = () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const [stdout, stderr] = [capture(), capture()];
  const code = await runCli(argv, {
    stdin: Readable.from([]),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { BCRYPT_COST: '4', LOG_LEVEL: 'silent', ...env },
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * Writes until stopped, as the service's clients and the secretary would: updates (each with its
 * audit entry and change, in one transaction) and imports of new people (each with contacts,
 * memberships and person.created changes). Resolves with how many of each.
 */
function keepWriting(t: TestApp, writer: string, ids: number[], tag: string) {
  let stop = false;
  const done = (async () => {
    let updates = 0;
    let imports = 0;
    for (let round = 0; !stop; round += 1) {
      const res = await request(t.app)
        .patch(`/people/${ids[round % ids.length]}`)
        .set('Authorization', `Bearer ${writer}`)
        .send({ 'person[first_name]': `W${round}` });
      expect(res.status).toBe(200);
      updates += 1;
      if (round % 5 === 0) {
        const file = tempFile([personRecord(`${tag}${round}`, 1), personRecord(`${tag}${round}`, 2)]);
        expect((await cli(t.database, ['import', file])).code).toBe(0);
        imports += 1;
      }
    }
    return { updates, imports };
  })();
  return {
    async stop() {
      stop = true;
      return done;
    },
  };
}

/**
 * What a snapshot keeps together, checked on a restored copy: every change has its person, and
 * each person's version counts exactly the updates the feed holds for them.
 */
async function expectConsistent(database: Database): Promise<void> {
  const [check] = await database.dataSource.query(`
    SELECT (SELECT count(*)::int FROM changes c WHERE NOT EXISTS (SELECT FROM people p WHERE p.id = c.person_id)) AS orphans,
           (SELECT count(*)::int FROM people p
             WHERE p.version - 1 <> (SELECT count(*) FROM changes c WHERE c.person_id = p.id AND c.type = 'person.updated')
           ) AS miscounted,
           (SELECT count(*)::int FROM people p WHERE p.username IS NULL
               AND NOT EXISTS (SELECT FROM changes c WHERE c.person_id = p.id AND c.type = 'person.created')
           ) AS unannounced,
           (SELECT count(*)::int FROM audit_entries a WHERE a.subject_type = 'person'
               AND NOT EXISTS (SELECT FROM people p WHERE p.id = a.subject_id)) AS audit_orphans`);
  expect(check).toEqual({ orphans: 0, miscounted: 0, unannounced: 0, audit_orphans: 0 });
}

async function fillForWriting(t: TestApp, tag: string): Promise<{ writer: string; ids: number[] }> {
  const records = Array.from({ length: 300 }, (_, i) => personRecord(tag, i));
  expect((await cli(t.database, ['import', tempFile(records)])).code).toBe(0);
  const writer = await t.tokenWith(['read', 'write']);
  const rows: { id: number }[] = await t.database.dataSource.query(
    "SELECT id FROM people WHERE username IS NULL AND role = 'member' ORDER BY id LIMIT 20",
  );
  return { writer, ids: rows.map((row) => row.id) };
}

async function restoredCopy(target: TestDatabaseTarget, file: string, opened: Database[]): Promise<Database> {
  const copy = await openEmptyDatabase(target);
  opened.push(copy);
  expect(await cli(copy, ['restore', file])).toMatchObject({ code: 0, stderr: '' });
  return copy;
}

describe.each(testDatabases)('a backup taken while the directory is written, on $name', (target) => {
  const opened: Database[] = [];
  afterAll(async () => {
    for (const database of opened) await database.close();
  });

  it('holds one moment: no change without its person, no update without its change', async () => {
    const t = await createTestApp(target);
    opened.push(t.database);
    const { writer, ids } = await fillForWriting(t, 'during');
    const writing = keepWriting(t, writer, ids, 'during');
    const files: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const file = backupPath();
      expect(await cli(t.database, ['backup', file])).toMatchObject({ code: 0, stderr: '' });
      files.push(file);
    }
    const written = await writing.stop();
    expect(written.updates).toBeGreaterThan(0);
    for (const file of files) await expectConsistent(await restoredCopy(target, file, opened));
  }, 180_000);
});

const embedded = testDatabases.find((target) => target.name === 'pglite');

(embedded ? describe : describe.skip)('backup and restore on the embedded database, through DATA_DIR', () => {
  const opened: Database[] = [];
  let dataDir: string;
  let served: Database;
  let server: DatabaseServer;
  let t: TestApp;
  /**
   * The tool's connection through the service's socket, as openToolDatabase makes it. (The tool
   * finds the socket through DATA_DIR's lock file, which, in this process, names this process.)
   */
  let throughService: Database;

  beforeAll(async () => {
    // The service's part, in this process: the database on DATA_DIR, served on its socket.
    dataDir = await migratedDataDir('backup-served-');
    served = await openDatabase({ databaseUrl: null, dataDir });
    server = await serveDatabase(served, { logger: pino({ level: 'silent' }) });
    t = await createTestApp(embedded ?? { name: 'pglite', url: null }, { database: served });
    throughService = await connectToDatabaseServer(server.socketPath, process.pid);
  }, 60_000);

  afterAll(async () => {
    await throughService?.close();
    await server?.close();
    await served?.close();
    for (const database of opened) await database.close();
  });

  it('is backed up through the running service while it writes, consistently', async () => {
    const { writer, ids } = await fillForWriting(t, 'served');
    const writing = keepWriting(t, writer, ids, 'served');
    const file = backupPath();
    const result = await cli(throughService, ['backup', file], { env: { DATA_DIR: dataDir } });
    expect((await writing.stop()).updates).toBeGreaterThan(0);
    expect(result).toMatchObject({
      code: 0,
      stderr: '',
      stdout: expect.stringMatching(/^backed up [\d,]+ people and/),
    });
    await expectConsistent(await restoredCopy(embedded ?? { name: 'pglite', url: null }, file, opened));
  }, 120_000);

  it('is backed up through the running service as it is', async () => {
    const file = backupPath();
    expect((await cli(throughService, ['backup', file], { env: { DATA_DIR: dataDir } })).code).toBe(0);
    const copy = await restoredCopy(embedded ?? { name: 'pglite', url: null }, file, opened);
    expect(asRestored(await contentsOf(copy))).toEqual(asRestored(await contentsOf(served)));
  }, 120_000);

  it('restores into a new DATA_DIR, and then refuses that DATA_DIR, the served one, and one holding other files', async () => {
    const file = backupPath();
    expect((await cli(throughService, ['backup', file], { env: { DATA_DIR: dataDir } })).code).toBe(0);
    const target = `${backupPath('data')}/nested`;
    const restored = await tool(['restore', file], { DATA_DIR: target });
    expect(restored).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^restored [\d,]+ people and [\d,]+ other rows/),
    });
    expect(restored.stderr).toMatch(/^created a new, empty embedded database in /);
    const database = await openDatabase({ databaseUrl: null, dataDir: target });
    try {
      const rows: { name: string }[] = await database.dataSource.query(
        'SELECT name FROM migrations ORDER BY id',
      );
      expect(rows.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
      const [{ people }] = await database.dataSource.query('SELECT count(*)::int AS people FROM people');
      expect(people).toBeGreaterThan(300);
    } finally {
      await database.close();
    }

    const again = await tool(['restore', file], { DATA_DIR: target });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /\nerror: cannot restore .*: the database already holds a directory; restore loads a backup only into an empty one\n$/,
    );

    expect(await cli(throughService, ['restore', file], { env: { DATA_DIR: dataDir } })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        `error: cannot restore into DATA_DIR: the service (process ${process.pid}) runs on it; restore into a new DATA_DIR, with the service stopped\n`,
      ),
    });

    const cluttered = backupPath('cluttered');
    mkdirSync(cluttered, { mode: 0o700 });
    writeFileSync(`${cluttered}/notes.txt`, 'mine');
    expect(await tool(['restore', file], { DATA_DIR: cluttered })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot restore into DATA_DIR ${cluttered}: it is not empty and holds no database; restore into a new or empty directory\n`,
    });
    expect(readdirSync(cluttered)).toEqual(['notes.txt']);
  }, 120_000);

  it('checks the file before it creates DATA_DIR', async () => {
    const target = backupPath('never-made');
    const notBackup = tempFile([personRecord('x', 1)]);
    expect(await tool(['restore', notBackup], { DATA_DIR: target })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot restore ${notBackup}: it is not a backup made by \`backup\` (its first line is no backup header)\n`,
    });
    expect(await tool(['restore', `${target}.missing`], { DATA_DIR: target })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot read ${target}.missing: no such file\n`,
    });
    expect(existsSync(target)).toBe(false);
  });
});

const server = testDatabases.find((target) => target.name === 'postgres');

(server ? describe : describe.skip)('restore on PostgreSQL, through DATABASE_URL', () => {
  it('loads into a database without the directory, then refuses it', async () => {
    const t = await createTestApp(server ?? { name: 'postgres', url: '' });
    const schema = `r_${process.pid}_${Date.now().toString(36)}`;
    try {
      await t.addPerson();
      const file = backupPath();
      expect((await cli(t.database, ['backup', file])).code).toBe(0);
      await t.database.dataSource.query(`CREATE SCHEMA "${schema}"`);
      // The tool's own connection, to a database whose search path starts with the new schema.
      const url = new URL(server?.url ?? '');
      url.searchParams.set('options', `-c search_path=${schema},public`);
      const env = { DATABASE_URL: url.toString() };
      const restored = await tool(['restore', file], env);
      expect(restored).toMatchObject({ code: 0, stdout: expect.stringMatching(/^restored 1 people and /) });
      expect(restored.stderr).toMatch(/^using PostgreSQL at /);
      const [{ count }] = await t.database.dataSource.query(
        `SELECT count(*)::int AS count FROM "${schema}".people`,
      );
      expect(count).toBe(1);
      expect((await tool(['restore', file], env)).stderr).toMatch(
        /\nerror: cannot restore .*: the database already holds a directory; restore loads a backup only into an empty one\n$/,
      );
    } finally {
      await t.database.dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await t.close();
    }
  }, 60_000);
});
