import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { testDatabases } from '../../support/databases';
import { migratedDataDir, NODE_FLAGS, serviceBuild } from '../../support/run-artifacts';
import { type ServedProcess, startService } from '../reliability/served-process';
import { personRecord } from './import-files';

/*
 * The built service and the built tool run as processes on one embedded DATA_DIR, for the test
 * files about the tool beside the running service (beside-the-service*.test.ts here and in
 * ../webhooks). `embedded` tells whether the run includes PGlite (not TEST_DATABASES=postgres).
 */

export const ROOT = join(__dirname, '../../..');
export const PASSWORD = 'a long password';
export const embedded = testDatabases.some((target) => target.name === 'pglite');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let build: Awaited<ReturnType<typeof serviceBuild>>;
const running: ServedProcess[] = [];
const temporary: string[] = [];

/**
 * The file's hooks: the run's build before its first test, services a test left running killed
 * after each, temporary directories removed after the last (once `finish` has run).
 */
export function useProcesses(finish: () => Promise<void> = async () => undefined): void {
  beforeAll(async () => {
    build = await serviceBuild('beside-the-service');
  }, 180_000);

  afterEach(() => {
    for (const service of running.splice(0))
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
  });

  afterAll(async () => {
    await finish();
    build?.remove();
    for (const directory of temporary) rmSync(directory, { recursive: true, force: true });
  });
}

/** The compiled service's entry point, for a test that starts it its own way. */
export function serviceMain(): string {
  return build.main;
}

export function newDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(directory);
  return directory;
}

/** A new DATA_DIR holding a migrated database, as a service that ran before leaves it. */
export async function newDataDir(prefix: string): Promise<string> {
  const directory = await migratedDataDir(prefix);
  temporary.push(directory);
  return directory;
}

/** The service on `dataDir`, killed after the test if it still runs then. */
export async function serve(dataDir: string): Promise<ServedProcess> {
  const service = await startService(build.main, { DATA_DIR: dataDir });
  running.push(service);
  return service;
}

export async function stop(service: ServedProcess): Promise<number | null> {
  service.child.kill('SIGTERM');
  return (await service.exited).code;
}

/** Starts the built tool as its own process, as `npm run cli -- ...` would. */
export function startTool(
  args: string[],
  options: { dataDir: string; cwd?: string; input?: string; env?: Record<string, string> },
): { child: ChildProcess; done: Promise<Run>; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [...NODE_FLAGS, build.cli, ...args], {
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

export function runTool(args: string[], options: Parameters<typeof startTool>[1]): Promise<Run> {
  return startTool(args, options).done;
}

export async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i += 1) await sleep(25);
  expect(condition()).toBe(true);
}

export function url(service: ServedProcess, path: string): string {
  return `http://127.0.0.1:${service.port}${path}`;
}

export function issueKey(service: ServedProcess, username: string, password = PASSWORD): Promise<Response> {
  return fetch(url(service, '/keys'), {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
  });
}

export function get(service: ServedProcess, path: string, token: string): Promise<Response> {
  return fetch(url(service, path), { headers: { Authorization: `Bearer ${token}` } });
}

export async function countPeople(service: ServedProcess, token: string, lastName: string): Promise<number> {
  const response = await get(service, `/people?last_name=${encodeURIComponent(lastName)}`, token);
  expect(response.status).toBe(200);
  return ((await response.json()) as unknown[]).length;
}

/** SQL straight on the service's database, through its socket, as psql -h DATA_DIR would. */
export async function sql(
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
export const TRAPS = `
  CREATE FUNCTION test_traps() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.first_name = 'Explode' THEN RAISE EXCEPTION 'exploded on purpose'; END IF;
    IF NEW.first_name = 'Sleepy' THEN PERFORM pg_sleep(3); END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER test_traps BEFORE INSERT ON people FOR EACH ROW EXECUTE FUNCTION test_traps();`;

/** An import file of `count` people tagged `tag`; `special` names some of them (the traps). */
export function importFile(
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
