import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { LOCK_FILE } from '../../../src/infrastructure/embedded/data-dir-lock';
import { openDatabase } from '../../../src/infrastructure/persistence/database';
import { SOCKET_NAME } from '../../../src/infrastructure/embedded/database-socket-path';
import { NODE_FLAGS } from '../../support/run-artifacts';
import {
  countPeople,
  embedded,
  get,
  importFile,
  issueKey,
  newDataDir,
  newDirectory,
  PASSWORD,
  ROOT,
  runTool,
  serve,
  serviceMain,
  sql,
  startTool,
  stop,
  TRAPS,
  until,
  useProcesses,
} from './beside-the-service-processes';

/*
 * The tool and the service on one embedded DATA_DIR, each test with a service of its own that it
 * starts, stops or restarts. (Tests that share one running service: beside-the-service.test.ts.)
 */
(embedded ? describe : describe.skip)(
  'the command-line tool and the service starting and stopping on one embedded database',
  () => {
    useProcesses();

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

      // The tool reads what the service wrote, and writes FILE relative to where it runs (through
      // npm, where the user was: callerDirectory's unit test, and cli/process with a real npm).
      const workDir = newDirectory('beside-cwd-');
      expect((await runTool(['export', 'people.json'], { dataDir, cwd: workDir })).code).toBe(0);
      // Every member the service lists now (an export holds no admins).
      const listedNow = (await (await get(service, '/people', token)).json()) as unknown[];
      expect((JSON.parse(readFileSync(join(workDir, 'people.json'), 'utf8')) as unknown[]).length).toBe(
        listedNow.length,
      );
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

      // A tool older than the database (a newer service migrated it) stops before touching it too,
      // while `migrate --status` shows why.
      const newer = 'SomethingNewer1799999999999';
      await sql(dataDir, 'INSERT INTO migrations (timestamp, name) VALUES ($1, $2)', [1799999999999, newer]);
      for (const argv of [['accounts', 'list'], ['migrate']]) {
        const refused = await runTool(argv, { dataDir });
        expect(refused).toMatchObject({ code: 1, stdout: '' });
        expect(refused.stderr.split('\n')[1]).toBe(
          `error: the database's schema is newer than this code: it holds migration ${newer}, which ` +
            'this version does not know; upgrade the code (git pull, npm ci, npm run build) and start that',
        );
      }
      const status = await runTool(['migrate', '--status'], { dataDir });
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(new RegExp(`\\nunknown +${newer}\\n`));
      await sql(dataDir, 'DELETE FROM migrations WHERE name = $1', [newer]);

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
      const second = spawnSync(process.execPath, [...NODE_FLAGS, serviceMain()], {
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

    it('starts the service once a command that had the directory to itself has finished', async () => {
      const dataDir = await newDataDir('beside-order-');
      // Set up without the service, as before a volunteer's first import.
      const setup = await openDatabase({ databaseUrl: null, dataDir });
      await setup.dataSource.query(TRAPS);
      await setup.close();
      // Sleepy keeps the command running for seconds, so the service surely starts meanwhile.
      const file = importFile(dataDir, 'first', 200, { 10: 'Sleepy' });

      const run = startTool(['import', file], { dataDir });
      // The tool holds the directory (its own lock) before the service is started.
      await until(() => {
        const lock = existsSync(join(dataDir, LOCK_FILE)) && readFileSync(join(dataDir, LOCK_FILE), 'utf8');
        return lock !== false && JSON.parse(lock).pid === run.child.pid;
      });
      // Another command started meanwhile waits its turn too.
      const second = startTool(
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
      const service = await serve(dataDir);
      expect((await run.done).code).toBe(0);
      const created = await second.done;
      expect(created.code).toBe(0);
      expect(created.stderr).toContain(
        `waiting for process ${run.child.pid}, which has the embedded database in ${dataDir} open ` +
          '(another command, or the service starting)\n',
      );

      expect(service.lines).toContainEqual(
        expect.objectContaining({
          pid: run.child.pid,
          msg: 'a command-line tool has the embedded database open: starting once it has finished',
        }),
      );
      const key = await issueKey(service, 'early');
      expect(key.status).toBe(201);
      const { token } = (await key.json()) as { token: string };
      expect(await countPeople(service, token, 'Lastfirst')).toBe(200);
    }, 120_000);
  },
);
