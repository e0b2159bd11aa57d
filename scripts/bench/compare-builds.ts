import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addBaselineKey } from './baseline-accounts';
import { BASELINE_SCHEMA, rowQueries, writeMemberChanges } from './bench-database';
import { followFeed } from './follow-feed';
import { type LoadFigures, runLoad } from './load-runner';
import { paths } from './paths';
import { cpuMilliseconds, ServerProcess, measuredServiceEnv } from './processes';
import { type KeptDatabase, keptDatabase, lookupValues } from './profile';
import { FEED_CHANGES, requestsOf, type ScenarioName, type Target } from './scenarios';

/**
 * What each change bought: several builds of the service (each a checkout's `dist/src/main.js`)
 * on one database a bench run kept, measured in interleaved rounds so that the machine's load
 * weighs on all alike. CPU per request is the figure to read on a shared machine.
 *
 *   DATABASE_URL=… BENCH_TOKEN=… node dist/scripts/bench/compare-builds.js \
 *     --scenarios chat_id,email --seconds 5 --rounds 2 name=/path/to/dist/src/main.js …
 *
 * Beside the server's CPU, each row gives PostgreSQL's: the CPU of the database's backends (from
 * pg_stat_activity and /proc) over the round, per request — the two share the machine's cores, so
 * a change that moves work into or out of the database shows in one or the other. Needs the
 * database server on this machine, and nothing else using the bench database meanwhile.
 *
 * `changes_feed` writes 100,000 changes and follows them as the bench does (each round adds them
 * to the database): its row gives the server's CPU per page of 1000 and changes/s as req/s.
 *
 * `--baseline` adds the raw baseline server as one more build, `raw`, on the copy the bench kept
 * in schema bench_baseline (PostgreSQL only), so that a ratio to the true limit is measured in the
 * same interleaved rounds. BENCH_TOKEN is given to the baseline's bench account if it lacks it.
 * `--express-floor` adds `raw-express`: the raw server's own handler as the only middleware of an
 * Express app, which shows what Express alone costs against `raw`.
 */

/** The bench's feed client once, as a load figure: a page is a request. */
/** The feed's changes are written with pg: only on PostgreSQL. */
function postgresUrl(kept: KeptDatabase): string {
  if ('url' in kept) return kept.url;
  throw new Error('changes_feed writes its changes with pg: it needs DATABASE_URL');
}

async function feedRound(server: ServerProcess, token: string, url: string): Promise<LoadFigures> {
  let before = 0;
  const feed = await followFeed(server.url, token, FEED_CHANGES, async (count) => {
    await writeMemberChanges(url, count);
    before = cpuMilliseconds(server.pid);
  });
  const cpu = cpuMilliseconds(server.pid) - before;
  if (!feed.inOrder || feed.read !== feed.written)
    throw new Error('changes_feed: a change was missed or repeated');
  return {
    requestsPerSecond: feed.changesPerSecond,
    p50Ms: 0,
    p99Ms: feed.p99PageMs,
    requests: feed.pages,
    non2xx: 0,
    errors: 0,
    statusCodes: { '200': feed.pages },
    serverCpuMsPerRequest: Math.round((cpu / feed.pages) * 100) / 100,
    databaseCpuMsPerRequest: null,
  };
}

/** What is started for a build: its script, and the environment it needs beyond the service's. */
interface Build {
  name: string;
  main: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The raw baseline as a build: its copy of the directory in the kept database, and BENCH_TOKEN
 * accepted there as the bench's own token is (the bench gives both servers the same token).
 * `overExpress`: its handler inside an Express app (`raw-express`).
 */
function baselineBuild(url: string, overExpress: boolean): Build {
  return {
    name: overExpress ? 'raw-express' : 'raw',
    main: paths.baselineServer,
    env: { BASELINE_DATABASE_URL: url, BASELINE_SCHEMA, BASELINE_EXPRESS: overExpress ? '1' : '0' },
  };
}

/** BENCH_TOKEN for the baseline's bench account, once for `raw` and `raw-express` alike. */
async function giveBaselineToken(kept: KeptDatabase, token: string): Promise<string> {
  if (!('url' in kept)) throw new Error('--baseline needs DATABASE_URL: the embedded baseline is not kept');
  if (!(await addBaselineKey(rowQueries(kept.url), 'bench', token))) {
    throw new Error(`--baseline: no bench account in schema ${BASELINE_SCHEMA}`);
  }
  return kept.url;
}

/** The middle value; for an even count the mean of the two middle ones. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: string) => {
    const at = args.indexOf(name);
    return at === -1 ? fallback : args.splice(at, 2)[1];
  };
  const scenarios = option('--scenarios', 'chat_id').split(',') as ScenarioName[];
  const seconds = Number(option('--seconds', '5'));
  const rounds = Number(option('--rounds', '2'));
  const withBaseline = args.includes('--baseline');
  const withFloor = args.includes('--express-floor');
  const builds: Build[] = args
    .filter((arg) => arg !== '--baseline' && arg !== '--express-floor')
    .map((arg) => {
      const [name, main] = arg.split('=');
      return { name, main };
    });
  const token = process.env.BENCH_TOKEN;
  if (!token || builds.length === 0) {
    throw new Error('needs DATABASE_URL or DATA_DIR, BENCH_TOKEN and builds as name=path/to/main.js');
  }
  const kept = keptDatabase();
  if ((withBaseline || withFloor) && scenarios.includes('changes_feed')) {
    throw new Error(
      '--baseline, --express-floor: the raw server has no change feed to follow (changes_feed)',
    );
  }
  if (withBaseline || withFloor) {
    const url = await giveBaselineToken(kept, token);
    if (withBaseline) builds.push(baselineBuild(url, false));
    if (withFloor) builds.push(baselineBuild(url, true));
  }
  const { probes, ids } = await lookupValues(kept);
  const logDir = await mkdtemp(join(tmpdir(), 'bench-builds-'));
  const env = measuredServiceEnv();
  const figures = new Map<string, LoadFigures[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const server = await ServerProcess.start(build.name, build.main, { ...env, ...build.env }, '/readyz', {
        logFile: join(logDir, `${build.name}.log`),
      });
      try {
        const target = { label: build.name, server, token, ids } as unknown as Target;
        for (const scenario of scenarios) {
          const next = () => requestsOf(scenario, target, probes, 100 + round);
          const headers = { Authorization: `Bearer ${token}` };
          const load =
            scenario === 'changes_feed'
              ? await feedRound(server, token, postgresUrl(kept))
              : await (async () => {
                  await runLoad(server.url, next(), { connections: 32, seconds: 2, headers });
                  return runLoad(server.url, next(), {
                    connections: 32,
                    seconds,
                    headers,
                    serverPid: server.pid,
                    databaseUrl: 'url' in kept ? kept.url : undefined,
                  });
                })();
          const key = `${scenario}\t${build.name}`;
          figures.set(key, [...(figures.get(key) ?? []), load]);
          process.stderr.write(
            `${scenario} ${build.name}: ${Math.round(load.requestsPerSecond)} req/s, cpu ${load.serverCpuMsPerRequest} ms/req, ` +
              `database cpu ${load.databaseCpuMsPerRequest ?? '-'} ms/req` +
              // A refused token (401) or any other failure makes the figures another request's.
              `${load.non2xx > 0 ? `, ${load.non2xx} answers not 2xx` : ''}\n`,
          );
        }
      } finally {
        await server.stop();
      }
    }
  }
  process.stdout.write(
    '| scenario | build | cpu ms/req (median) | database cpu ms/req (median) | req/s (median) | p99 ms (median) |\n' +
      '|---|---|---|---|---|---|\n',
  );
  for (const [key, loads] of figures) {
    const [scenario, name] = key.split('\t');
    process.stdout.write(
      `| ${scenario} | ${name} | ${median(loads.map((l) => l.serverCpuMsPerRequest ?? 0)).toFixed(3)} | ` +
        `${median(loads.map((l) => l.databaseCpuMsPerRequest ?? 0)).toFixed(3)} | ` +
        `${Math.round(median(loads.map((l) => l.requestsPerSecond)))} | ${median(loads.map((l) => l.p99Ms))} |\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
