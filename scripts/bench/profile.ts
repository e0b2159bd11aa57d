import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Client } from 'pg';
import { writeMemberChanges } from './bench-database';
import { followFeed } from './follow-feed';
import { fragmentOf } from './generate-directory';
import { type PageKind, startPageLoops } from './page-loops';
import { startSlowStreams } from './slow-streams';
import { runLoad } from './load-runner';
import { paths } from './paths';
import { ServerProcess, measuredServiceEnv } from './processes';
import { Random } from './random';
import { FEED_CHANGES, requestsOf, SLOW_STREAM_CLIENTS, type ScenarioName, type Target } from './scenarios';

/**
 * Where the service's CPU goes under one scenario's load: starts the built service with
 * `node --cpu-prof` on a database the benchmark left (`npm run bench -- --keep`), drives it,
 * stops it, and sums the profile's self time by function and by file.
 *
 *   DATABASE_URL=postgres://…/bench_… node dist/scripts/bench/profile.js [scenario] [seconds] [token]
 *   DATA_DIR=<a kept PGlite directory> node dist/scripts/bench/profile.js [scenario] [seconds] [token]
 *
 * `changes_feed` writes 100,000 changes and follows them, as the bench does, again and again
 * until the seconds are spent (each round adds 100,000 changes to the kept database).
 * `page_loops_people` (`page_loops_changes`): another key's chat_id lookups at 4 connections while
 * 16 loops of one key ask for people (change) pages of 1000, as in the bench's page_loops.
 * `slow_streams`: chat_id lookups while another key's 100 slow clients ask for the unpaged list.
 *
 * Without a token, one is issued to the benchmark's reader account. BENCH_SERVICE_MAIN names
 * another build's dist/src/main.js (to profile a checkout before a change).
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const PASSWORD = 'bench-password-correct-horse';

/** A short name for a script: the package under node_modules, or the path under dist. */
function fileOf(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const dist = url.indexOf('/dist/');
  if (dist !== -1) return url.slice(dist + '/dist/'.length);
  return url.replace(/^node:/, 'node:');
}

/** Self time in milliseconds per node, from the samples and their time deltas. */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const times = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    times.set(profile.samples[i], (times.get(profile.samples[i]) ?? 0) + delta);
  }
  return times;
}

function top(totals: Map<string, number>, busy: number, count: number): string[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([name, ms]) =>
        `${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${name}`,
    );
}

/** The summary: busy time (everything but idle), then the top functions and files by self time. */
export function summarise(profile: CpuProfile, count = 25): string {
  const self = selfTimes(profile);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    total += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const file = fileOf(url);
    const name = `${functionName || '(anonymous)'} ${file}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
  }
  const busy = total - idle;
  return [
    `profiled ${(total / 1000).toFixed(1)} s, busy ${(busy / 1000).toFixed(1)} s (${((100 * busy) / total).toFixed(0)}%)`,
    '',
    'self time by function (share of busy time)',
    ...top(byFunction, busy, count),
    '',
    'self time by file or package',
    ...top(byFile, busy, count),
  ].join('\n');
}

/** A kept bench database: a PostgreSQL URL, or (PGlite) the service's DATA_DIR. */
export type KeptDatabase = { url: string } | { dataDir: string };

/** The kept database named by DATABASE_URL or, without it, DATA_DIR (the embedded one). */
export function keptDatabase(): KeptDatabase {
  const url = process.env.DATABASE_URL;
  if (url) return { url };
  const dataDir = process.env.DATA_DIR;
  if (dataDir) return { dataDir };
  throw new Error(
    'DATABASE_URL or DATA_DIR must name a database the benchmark kept (npm run bench -- --keep)',
  );
}

/** Runs `use` with plain queries on the kept database, then lets it go (before the service opens it). */
async function withKeptDatabase<T>(
  kept: KeptDatabase,
  use: (query: <R>(sql: string) => Promise<R[]>) => Promise<T>,
): Promise<T> {
  if ('url' in kept) {
    const client = new Client({ connectionString: kept.url });
    await client.connect();
    try {
      return await use(async (sql) => (await client.query(sql)).rows);
    } finally {
      await client.end();
    }
  }
  const pglite = new PGlite({ dataDir: kept.dataDir, extensions: { pg_trgm } });
  try {
    return await use(async (sql) => (await pglite.query(sql)).rows as never[]);
  } finally {
    await pglite.close();
  }
}

/** The seed of the last-name fragments drawn from a kept database: the same fragments each run. */
const FRAGMENT_SEED = 20240601;

/** Every lookup value, page start and id of the visible people in a kept bench database. */
export function lookupValues(kept: KeptDatabase) {
  return withKeptDatabase(kept, async (query) => {
    const chatIds = await query<{ v: string }>(
      "SELECT chat_id AS v FROM people WHERE role = 'member' AND chat_id IS NOT NULL",
    );
    const emails = await query<{ v: string }>(
      "SELECT c.value AS v FROM contacts c JOIN people p ON p.id = c.person_id WHERE p.role = 'member' AND c.kind = 'email'",
    );
    const ids = await query<{ id: number }>("SELECT id FROM people WHERE role = 'member' ORDER BY id");
    // A fragment of each visible person's last name, drawn as the bench draws its own (not a few
    // hundred distinct three-letter ones, which made name searches look cheaper than the bench's).
    const names = await query<{ v: string }>(
      "SELECT last_name AS v FROM people WHERE role = 'member' ORDER BY id",
    );
    const random = new Random(FRAGMENT_SEED);
    return {
      probes: {
        chatIds: chatIds.map((r) => r.v),
        emails: emails.map((r) => r.v),
        lastNameFragments: names.map((r) => fragmentOf(random, r.v)),
      },
      ids: ids.map((r) => r.id),
    };
  });
}

/**
 * Lookups or pages at 32 connections for `seconds`, after 2 s of warm-up. `page_loops_people` and
 * `page_loops_changes`: chat_id lookups at the bench's 4 connections while another key (`loopToken`)
 * runs 16 loops of pages of 1000, as the bench's page_loops scenario does. `slow_streams`: chat_id
 * lookups at 32 connections while another key's 100 slow clients ask for the unpaged list.
 */
async function driveLoad(
  server: ServerProcess,
  token: string,
  probes: Awaited<ReturnType<typeof lookupValues>>['probes'],
  ids: number[],
  scenario: string,
  seconds: number,
  loopToken: () => Promise<string>,
) {
  const loopKind = /^page_loops_(people|changes)$/.exec(scenario)?.[1] as PageKind | undefined;
  const target = { label: 'service', server, token, ids } as unknown as Target;
  const next = requestsOf(loopKind === undefined ? (scenario as ScenarioName) : 'page_loops', target, probes);
  const headers = { Authorization: `Bearer ${token}` };
  const connections = loopKind === undefined ? 32 : 4;
  await runLoad(server.url, next, { connections, seconds: 2, headers });
  let loops: { stop(): Promise<unknown> } | undefined;
  if (loopKind !== undefined) {
    loops = startPageLoops(server.url, await loopToken(), loopKind, 16, ids[ids.length - 1] ?? 1);
  } else if (scenario === 'slow_streams') {
    const streamToken = await loopToken();
    // A key's first use records last_used_at (a write): done before, as in the bench.
    await fetch(`${server.url}/people?limit=1`, { headers: { Authorization: `Bearer ${streamToken}` } });
    loops = startSlowStreams(server.url, streamToken, SLOW_STREAM_CLIENTS);
  }
  if (loops !== undefined) await new Promise((resolve) => setTimeout(resolve, 1000));
  try {
    const figures = await runLoad(server.url, next, { connections, seconds, headers, serverPid: server.pid });
    process.stdout.write(
      `${scenario}: ${Math.round(figures.requestsPerSecond)} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, ` +
        `cpu ${figures.serverCpuMsPerRequest} ms/req, non-2xx ${figures.non2xx}\n`,
    );
  } finally {
    if (loops !== undefined) process.stdout.write(`loops: ${JSON.stringify(await loops.stop())}\n`);
  }
}

/** The bench's feed client, again and again until `seconds` are spent (at least once). */
async function followFeedFor(serviceUrl: string, token: string, databaseUrl: string, seconds: number) {
  const until = performance.now() + seconds * 1000;
  do {
    const feed = await followFeed(serviceUrl, token, FEED_CHANGES, (count) =>
      writeMemberChanges(databaseUrl, count),
    );
    process.stdout.write(
      `changes_feed: ${Math.round(feed.changesPerSecond)} changes/s, ${feed.read} of ${feed.written} read, ` +
        `${feed.pages} pages, page p99 ${feed.p99PageMs} ms, in order ${feed.inOrder}\n`,
    );
  } while (performance.now() < until);
}

async function main() {
  const [scenario = 'chat_id', secondsText = '10', givenToken] = process.argv.slice(2);
  const kept = keptDatabase();
  if (scenario === 'changes_feed' && !('url' in kept)) {
    throw new Error('changes_feed writes its changes with pg: it needs DATABASE_URL');
  }
  // Read before the service starts: an embedded database belongs to one process at a time.
  const { probes, ids } = await lookupValues(kept);
  const profileDir = await mkdtemp(join(tmpdir(), 'bench-profile-'));
  const env = measuredServiceEnv();
  const main = process.env.BENCH_SERVICE_MAIN ?? paths.serviceMain;
  const server = await ServerProcess.start('service', main, env, '/readyz', {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
    logFile: join(profileDir, 'service.log'),
  });
  try {
    const issueToken = async () => {
      const response = await fetch(`${server.url}/keys`, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from(`bench:${PASSWORD}`).toString('base64')}` },
      });
      return ((await response.json()) as { token: string }).token;
    };
    const token = givenToken ?? (await issueToken());
    if ('url' in kept && scenario === 'changes_feed') {
      await followFeedFor(server.url, token, kept.url, Number(secondsText));
    } else await driveLoad(server, token, probes, ids, scenario, Number(secondsText), issueToken);
  } finally {
    await server.stop();
  }
  const file = (await readdir(profileDir)).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no profile written in ${profileDir}`);
  const profile = JSON.parse(await readFile(join(profileDir, file), 'utf8')) as CpuProfile;
  process.stdout.write(`${join(profileDir, file)}\n${summarise(profile)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
