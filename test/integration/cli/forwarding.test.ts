import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(__dirname, '../../..');
// Compiled into a directory of this file's own (git-ignored, inside the repository so that
// node_modules resolves): others may be building dist/ at the same time.
const OUT = join(ROOT, 'test-artifacts', `forwarding-${process.pid}`);
const SERVICE = join(OUT, 'src/main.js');
const TOOL = join(OUT, 'src/cli/main.js');
const STARTUP_TIMEOUT_MS = 90_000;

interface Service {
  child: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; stderr: string }>;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const temporary: string[] = [];

function newDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(directory);
  return directory;
}

function serviceEnv(dataDir: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', BCRYPT_COST: '4', LOG_LEVEL: 'info' };
}

/** Starts the built service and resolves once it logs the port it listens on. */
function startService(dataDir: string): Promise<Service> {
  const child = spawn(process.execPath, [SERVICE], { cwd: ROOT, env: serviceEnv(dataDir) });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stderr })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not listen within ${STARTUP_TIMEOUT_MS} ms: ${stderr}`));
    }, STARTUP_TIMEOUT_MS).unref();
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as { port?: number; msg?: string };
      if (typeof entry.port === 'number' && entry.msg?.includes('listening')) {
        clearTimeout(timer);
        resolve({ child, port: entry.port, exited });
      }
    });
    void exited.then(({ code }) => reject(new Error(`the service exited with ${code}: ${stderr}`)));
  });
}

/** Runs the built tool as its own process, as `npm run cli -- ...` would. */
function runTool(
  args: string[],
  options: { dataDir: string; cwd?: string; input?: string; env?: Record<string, string> },
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TOOL, ...args], {
      cwd: options.cwd ?? ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: options.dataDir,
        BCRYPT_COST: '4',
        LOG_LEVEL: 'silent',
        ...options.env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdin.end(options.input ?? '');
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function issueKey(port: number, username: string, password: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/keys`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
  });
}

async function people(port: number, token: string): Promise<{ first_name: string }[]> {
  const response = await fetch(`http://127.0.0.1:${port}/people`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { first_name: string }[];
}

function demoPassword(output: string): string {
  const password = /^password: (\S+)$/m.exec(output)?.[1];
  if (password === undefined) throw new Error(`no password in: ${output}`);
  return password;
}

async function stop(service: Service, signal: NodeJS.Signals): Promise<number | null> {
  service.child.kill(signal);
  return (await service.exited).code;
}

const running: Service[] = [];

beforeAll(() => {
  const build = spawnSync(
    join(ROOT, 'node_modules/.bin/tsc'),
    ['-p', 'tsconfig.build.json', '--outDir', OUT, '--tsBuildInfoFile', join(OUT, '.tsbuildinfo')],
    { cwd: ROOT, encoding: 'utf8' },
  );
  // Type errors elsewhere in the tree still emit JavaScript; only missing output is fatal here.
  if (!existsSync(SERVICE) || !existsSync(TOOL)) throw new Error(`the build failed:\n${build.stdout}`);
}, 180_000);

afterEach(() => {
  for (const service of running.splice(0)) if (service.child.exitCode === null) service.child.kill('SIGKILL');
});

afterAll(() => {
  rmSync(OUT, { recursive: true, force: true });
  for (const directory of temporary) rmSync(directory, { recursive: true, force: true });
});

describe('the command-line tool beside the running service on the embedded database', () => {
  it('hands its commands to the service, whose changes are served at once and survive a restart', async () => {
    const dataDir = newDirectory('forwarding-');
    const service = await startService(dataDir);
    running.push(service);

    // Only this OS user may talk to the service.
    const socket = join(dataDir, 'cli.sock');
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dataDir, 'membership-directory.lock'), 'utf8'))).toEqual({
      pid: service.child.pid,
      socket,
    });

    const demo = await runTool(['demo'], { dataDir });
    expect(demo).toMatchObject({ code: 0, stderr: '' });
    expect(demo.stdout).toMatch(/^username: demo$/m);
    // The address printed is the one the service really listens on.
    expect(demo.stdout).toContain(`http://localhost:${service.port}/keys`);
    const password = demoPassword(demo.stdout);

    const key = await issueKey(service.port, 'demo', password);
    expect(key.status).toBe(201);
    const { token } = (await key.json()) as { token: string };
    const listed = await people(service.port, token);
    expect(listed.length).toBeGreaterThan(20);

    const created = await runTool(['accounts', 'create', '--username', 'desk', '--permissions', 'read'], {
      dataDir,
      input: 'a long password\n',
    });
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^created the account "desk"/);
    expect((await issueKey(service.port, 'desk', 'a long password')).status).toBe(201);

    // FILE is relative to where the tool runs, not to where the service runs.
    const workDir = newDirectory('forwarding-cwd-');
    const exported = await runTool(['export', 'people.json'], { dataDir, cwd: workDir });
    expect(exported.code).toBe(0);
    const file = JSON.parse(readFileSync(join(workDir, 'people.json'), 'utf8')) as unknown[];
    expect(file.length).toBeGreaterThanOrEqual(listed.length);
    expect(existsSync(join(ROOT, 'people.json'))).toBe(false);
    // Through npm, which runs the tool in the project folder and says where the user was.
    const throughNpm = await runTool(['export', 'npm.json'], {
      dataDir,
      env: { npm_lifecycle_event: 'cli', INIT_CWD: workDir },
    });
    expect(throughNpm).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(join(workDir, 'npm.json'))).toBe(true);
    expect(existsSync(join(ROOT, 'npm.json'))).toBe(false);

    // Wrong usage and failures come back as they would from the tool alone.
    const missing = await runTool(['import', 'absent.json'], { dataDir, cwd: workDir });
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot read ${join(workDir, 'absent.json')}: no such file\n`,
    });
    expect(await runTool(['migrate'], { dataDir })).toEqual({
      code: 0,
      stdout: 'the database is up to date\n',
      stderr: '',
    });

    // A second service on the same directory is refused, and the first keeps serving.
    const second = spawnSync(process.execPath, [SERVICE], {
      cwd: ROOT,
      env: serviceEnv(dataDir),
      encoding: 'utf8',
    });
    expect(second.status).toBe(1);
    expect(second.stderr).toBe(
      `start-up failed: data directory ${dataDir} is in use by process ${service.child.pid} (the service?); ` +
        'stop it, or use DATABASE_URL for PostgreSQL\n',
    );
    expect((await people(service.port, token)).length).toBe(listed.length);

    expect(await stop(service, 'SIGTERM')).toBe(0);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(join(dataDir, 'membership-directory.lock'))).toBe(false);

    // Nothing the tool did through the service was lost when the service wrote its state back.
    const restarted = await startService(dataDir);
    running.push(restarted);
    const again = await issueKey(restarted.port, 'demo', password);
    expect(again.status).toBe(201);
    const { token: newToken } = (await again.json()) as { token: string };
    expect(await people(restarted.port, newToken)).toEqual(listed);
    expect((await issueKey(restarted.port, 'desk', 'a long password')).status).toBe(201);
    expect(await stop(restarted, 'SIGTERM')).toBe(0);
  }, 300_000);

  it('runs on its own when the service died without cleaning up, taking over its stale lock', async () => {
    const dataDir = newDirectory('forwarding-crash-');
    const service = await startService(dataDir);
    running.push(service);
    const created = await runTool(['accounts', 'create', '--username', 'kept'], {
      dataDir,
      input: 'a long password\n',
    });
    expect(created.code).toBe(0);

    await stop(service, 'SIGKILL');
    expect(existsSync(join(dataDir, 'membership-directory.lock'))).toBe(true);

    const listed = await runTool(['accounts', 'list'], { dataDir });
    expect(listed).toMatchObject({ code: 0, stderr: `using the embedded database in ${dataDir}\n` });
    expect(listed.stdout).toMatch(/^kept\s+admin/m);
    expect(existsSync(join(dataDir, 'membership-directory.lock'))).toBe(false);
  }, 300_000);
});
