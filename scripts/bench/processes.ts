import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Client } from 'pg';

/** The Node major the project targets (README, the Docker image). */
const TARGET_NODE_MAJOR = 24;

/**
 * The Node.js that runs what the bench measures (the service, its tool, the raw servers, all on
 * the same one): BENCH_NODE when set; else the one running the bench when it is of the target
 * major or later; else Node 24 from the npm registry (`npx -y node@24`, fetched once and cached),
 * since the service's figures differ between majors far more than the raw server's. Where that
 * cannot be had, the bench's own, and olderNodeWarning says so. Found when first asked, not when
 * this module loads: the load processes import it too.
 */
export function measuredNode(): string {
  measuredPath ??= process.env.BENCH_NODE || targetNode();
  return measuredPath;
}

let measuredPath: string | undefined;

function targetNode(): string {
  if (Number(process.versions.node.split('.')[0]) >= TARGET_NODE_MAJOR) return process.execPath;
  const fetched = spawnSync('npx', ['-y', `node@${TARGET_NODE_MAJOR}`, '-p', 'process.execPath'], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  const path = fetched.status === 0 ? fetched.stdout.trim() : '';
  return path === '' ? process.execPath : path;
}

let measuredVersion: string | undefined;

/** The version of measuredNode, such as v24.11.1 (asked once). */
export function measuredNodeVersion(): string {
  if (measuredVersion === undefined) {
    const asked = spawnSync(measuredNode(), ['-p', 'process.version'], { encoding: 'utf8' });
    if (asked.status !== 0) {
      const why = asked.error?.message ?? asked.stderr.trim();
      throw new Error(`${measuredNode()} does not run: ${why}`);
    }
    measuredVersion = asked.stdout.trim();
  }
  return measuredVersion;
}

/** A line to print when the measured Node is older than the project's target, or null. */
export function olderNodeWarning(): string | null {
  const version = measuredNodeVersion();
  if (Number(version.slice(1).split('.')[0]) >= TARGET_NODE_MAJOR) return null;
  return `the servers run on Node ${version} (Node ${TARGET_NODE_MAJOR} could not be fetched with npx); the project targets Node ${TARGET_NODE_MAJOR} (README): BENCH_NODE=/path/to/node${TARGET_NODE_MAJOR} measures there`;
}

/**
 * The environment the bench runs the service in: its log as a deployment writes it, a rate limit
 * far above what the load reaches (the limiter must count, not throttle), dates in UTC.
 */
export function measuredServiceEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '1000000',
    DIRECTORY_TIMEZONE: 'UTC',
    NODE_ENV: 'production',
  };
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process in bytes, from /proc (Linux). */
export function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** CPU time (user + system) a process has used so far, in milliseconds, from /proc (Linux). */
export function cpuMilliseconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/**
 * CPU milliseconds so far of each PostgreSQL backend serving `url`'s database (but the one
 * asking), from pg_stat_activity and /proc: the database server must run on this machine.
 */
export async function backendCpu(url: string): Promise<Map<number, number>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        cpu.set(pid, cpuMilliseconds(pid));
      } catch {
        // Gone meanwhile.
      }
    }
    return cpu;
  } finally {
    await client.end();
  }
}

/** CPU spent between two readings by the backends of the second (new ones from zero). */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

/** Runs a node script (on measuredNode) to completion; rejects with its standard error when it fails. */
export function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
  nodeOptions: string[] = [],
): Promise<{ stdout: string; stderr: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(measuredNode(), [...nodeOptions, script, ...args], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolve({ stdout, stderr, seconds });
      else
        reject(
          new Error(`${script} ${args[0] ?? ''} exited with ${code}: ${stderr.trim() || stdout.trim()}`),
        );
    });
    child.stdin.end(input ?? '');
  });
}

export interface ServerOptions {
  /** Options for node itself, such as --cpu-prof. */
  nodeArgs?: string[];
  /** Where the server's standard output goes (appended); without it, the bench keeps its tail. */
  logFile?: string;
}

/** A server started as a child process, listening on 127.0.0.1:port. */
export class ServerProcess {
  private output = '';
  private child: ChildProcess;

  private constructor(
    readonly name: string,
    private readonly script: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly readyPath: string,
    readonly port: number,
    private readonly options: ServerOptions,
  ) {
    this.child = this.spawn();
  }

  static async start(
    name: string,
    script: string,
    env: NodeJS.ProcessEnv,
    readyPath: string,
    options: ServerOptions = {},
  ) {
    const server = new ServerProcess(name, script, env, readyPath, await freePort(), options);
    await server.waitUntilReady(readyPath);
    return server;
  }

  private spawn(): ChildProcess {
    // Standard output into a file, as a deployment keeps its log: the bench does not read it.
    const logFd = this.options.logFile === undefined ? undefined : openSync(this.options.logFile, 'a');
    const child = spawn(measuredNode(), [...(this.options.nodeArgs ?? []), this.script], {
      env: { ...this.env, PORT: String(this.port) },
      stdio: ['ignore', logFd ?? 'pipe', 'pipe'],
    });
    if (logFd !== undefined) closeSync(logFd);
    const keep = (chunk: Buffer) => {
      // The last few kilobytes are enough to say why a server failed.
      this.output = (this.output + chunk.toString()).slice(-8000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    return child;
  }

  /**
   * Stops the server and starts a fresh process on the same port: nothing compiled, cached or
   * pooled yet, as after a deploy. The cold round measures that.
   */
  async restart(): Promise<void> {
    await this.stop();
    this.child = this.spawn();
    await this.waitUntilReady(this.readyPath);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  residentBytes(): number {
    return residentBytes(this.pid);
  }

  private async waitUntilReady(path: string, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) {
        throw new Error(
          `${this.name} exited with ${this.child.exitCode} while starting:\n${this.recentOutput()}`,
        );
      }
      try {
        const response = await fetch(`${this.url}${path}`);
        if (response.ok) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await this.stop();
    throw new Error(`${this.name} was not ready within ${timeoutMs / 1000} s:\n${this.recentOutput()}`);
  }

  /** SIGTERM and wait for the exit; SIGKILL if it does not stop within ten seconds. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  recentOutput(): string {
    if (this.options.logFile === undefined) return this.output;
    const log = readFileSync(this.options.logFile, 'utf8').slice(-4000);
    return `${log}${this.output}`;
  }
}
