import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { addBaselineAccount, type BenchAccount } from './baseline-accounts';
import { baselineLoad } from './baseline-load';
import { BASELINE_SCHEMA, BenchDatabase, STRICT_BASELINE_SCHEMA } from './bench-database';
import { type BenchOptions, parseOptions } from './bench-options';
import { compareAnswers } from './compare-answers';
import { csvImportBench } from './csv-import';
import { END_ALL_YESTERDAY, endAllInPglite } from './calendar-lapse';
import { type GeneratedDirectory, generateDirectory } from './generate-directory';
import { combineLoads, type LoadFigures } from './load-runner';
import { Interruption } from './interruption';
import { paths } from './paths';
import { measuredNodeVersion, olderNodeWarning, runNode, ServerProcess } from './processes';
import { type RunResult, renderTable, rowsOf } from './report';
import {
  type Figures,
  isServiceOnly,
  isThroughput,
  runScenario,
  SCENARIO_NAMES,
  throughput,
  type ScenarioName,
  type ScenarioSettings,
  type Target,
} from './scenarios';
import { ServiceCli } from './service-cli';
import { runSync } from './sync-run';
import { walkIds } from './walk-ids';
import { webhookBench } from './webhooks';

const BCRYPT_COST = 12;
const interruption = new Interruption();
const PASSWORD = 'bench-password-correct-horse';
// Keys a storm can get issued per second at most (bcrypt cost 12 is about 0.2 s of one core).
const KEYS_PER_SECOND_BOUND = 15;
const KEYS_PER_ACCOUNT = 90;

function log(message: string) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function basic(account: BenchAccount): string {
  return `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;
}

/** The benchmark's reader account and enough storm accounts that none reaches 100 active keys. */
function accountsFor(options: BenchOptions): { reader: BenchAccount; storm: BenchAccount[] } {
  // manage: for the import loop (import_lookups); granted only by name.
  const reader = {
    username: 'bench',
    password: PASSWORD,
    permissions: ['read', 'write', 'manage'],
    admin: true,
  };
  const stormCount = Math.ceil((options.seconds * KEYS_PER_SECOND_BOUND) / KEYS_PER_ACCOUNT) + 1;
  const storm = Array.from({ length: stormCount }, (_, i) => ({
    username: `bench-storm-${i + 1}`,
    password: PASSWORD,
    permissions: ['read'],
    admin: true,
  }));
  return { reader, storm };
}

function serviceEnv(database: { url: string } | { dataDir: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The default level: one line per request, as a deployment writes them (into a file here).
    LOG_LEVEL: 'info',
    // Far above what 32 connections reach in a minute: the limiter must count, not throttle.
    RATE_LIMIT_PER_MINUTE: '1000000',
    BCRYPT_COST: String(BCRYPT_COST),
    DIRECTORY_TIMEZONE: 'UTC',
    NODE_ENV: 'production',
    // The wrong-password storm comes from many client addresses, as X-Forwarded-For from loopback.
    TRUST_PROXY: 'loopback',
  };
  delete env.REDIS_URL;
  if ('url' in database) {
    env.DATABASE_URL = database.url;
    delete env.DATA_DIR;
  } else {
    delete env.DATABASE_URL;
    env.DATA_DIR = database.dataDir;
  }
  return env;
}

/**
 * A key for the account. Right after a storm of sign-ins the service may still refuse one with
 * 503 (its queue of password checks is full): asked again after Retry-After, a few times.
 */
async function issueToken(url: string, account: BenchAccount): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${url}/keys`, {
      method: 'POST',
      headers: { Authorization: basic(account) },
    });
    const body = (await response.json()) as { token?: string };
    if (response.status === 201 && body.token) return body.token;
    if (response.status !== 503 || attempt >= 10) {
      throw new Error(`POST /keys answered ${response.status}: ${JSON.stringify(body)}`);
    }
    const seconds = Number(response.headers.get('Retry-After') ?? 1) || 1;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}

function settingsFor(options: BenchOptions, directory: GeneratedDirectory): ScenarioSettings {
  return {
    probes: directory.probes,
    connections: options.connections,
    seconds: options.seconds,
    coldSeconds: options.coldSeconds,
    warmupSeconds: options.warmupSeconds,
    stormConnections: options.stormConnections,
    fullListRepetitions: options.fullListRepetitions,
  };
}

function comparisonPaths(directory: GeneratedDirectory, ids: number[]): string[] {
  const { emails, chatIds, lastNameFragments } = directory.probes;
  const middle = ids[Math.floor(ids.length / 2)] ?? 0;
  return [
    ...emails.slice(0, 5).map((email) => `/people?email=${encodeURIComponent(email)}`),
    ...chatIds.slice(0, 5).map((chatId) => `/people?chat_id=${encodeURIComponent(chatId)}`),
    ...lastNameFragments.slice(0, 5).map((part) => `/people?last_name=${encodeURIComponent(part)}&limit=50`),
    '/people?active=yes&limit=100&after=0',
    `/people?active=yes&limit=100&after=${middle}`,
    `/people?active=no&limit=100&after=${middle}`,
  ];
}

/**
 * A throughput scenario on each target: first a cold round on a freshly started process of each
 * (reported apart), then, after a warm-up, rounds that alternate the order of the targets
 * (A B, B A, ...) so that a change in the machine's load during the run, which other work on a
 * shared machine causes, weighs on all of them alike. Each round draws another random sequence,
 * the same for every target.
 */
async function throughputRounds(
  name: ScenarioName,
  targets: Target[],
  settings: ScenarioSettings,
  rounds: number,
): Promise<Map<Target, Figures>> {
  const cold = new Map<Target, LoadFigures>();
  if (settings.coldSeconds > 0) {
    // Every other scenario starts with the other target: whatever else the machine does then
    // (other work settling, the database writing out) falls on both alike over a run.
    const first = SCENARIO_NAMES.indexOf(name) % 2 === 0 ? targets : [...targets].reverse();
    for (const target of first) {
      log(`${name}: ${target.label}, restarted for the cold round…`);
      await target.server.restart();
      cold.set(target, await throughput(name, target, settings, 'cold', 1));
    }
  }
  if (settings.warmupSeconds > 0) {
    for (const target of targets) await throughput(name, target, settings, 'warm-up', 2);
  }
  const loads = new Map<Target, LoadFigures[]>(targets.map((target) => [target, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      log(`${name}: ${target.label}, round ${round + 1} of ${rounds}…`);
      loads.get(target)?.push(await throughput(name, target, settings, 'measure', 3 + round));
    }
  }
  return new Map(
    targets.map((target) => [
      target,
      { kind: 'load', load: combineLoads(loads.get(target) ?? []), cold: cold.get(target) },
    ]),
  );
}

/** Runs a scenario on both servers: throughput ones in rounds, the others once each. */
async function compare(
  name: ScenarioName,
  service: Target,
  baseline: Target,
  settings: ScenarioSettings,
  rounds: number,
): Promise<{ service: Figures; baseline?: Figures }> {
  if (isServiceOnly(name)) {
    log(`${name}: service…`);
    return { service: await runScenario(name, service, settings) };
  }
  if (!isThroughput(name)) {
    log(`${name}: service…`);
    const serviceFigures = await runScenario(name, service, settings);
    log(`${name}: baseline…`);
    return { service: serviceFigures, baseline: await runScenario(name, baseline, settings) };
  }
  const figures = await throughputRounds(name, [service, baseline], settings, rounds);
  return { service: figures.get(service) as Figures, baseline: figures.get(baseline) as Figures };
}

async function postgresRun(
  options: BenchOptions,
  directory: GeneratedDirectory,
  workDir: string,
): Promise<RunResult> {
  const database = await BenchDatabase.prepare(process.env);
  log(`PostgreSQL: ${database.description}`);
  const servers: ServerProcess[] = [];
  const forget = [
    interruption.add(() => (options.keep ? Promise.resolve() : database.cleanUp())),
    interruption.add(() => Promise.all(servers.map((server) => server.stop()))),
  ];
  try {
    const env = serviceEnv({ url: database.url });
    const cli = new ServiceCli(env);
    await cli.migrate();
    log('importing through the CLI…');
    const firstImport = await cli.import(directory.file);
    const serviceSeconds = firstImport.seconds;
    log(`service import: ${serviceSeconds.toFixed(1)} s`);
    log('sync: export, 1% changed, import --dry-run, import…');
    const sync = await runSync(cli, firstImport, join(workDir, 'sync-postgres'));
    log(`sync: dry run ${sync.dryRun.seconds.toFixed(1)} s, re-import ${sync.reimport.seconds.toFixed(1)} s`);
    await database.createBaselineSchema();
    // The baseline loads what the service holds after the sync, so that their answers agree.
    const baseline = await baselineLoad(
      { connectionString: database.url, schema: BASELINE_SCHEMA },
      sync.file,
    );
    log(`baseline load: ${baseline.seconds.toFixed(1)} s`);
    // The stricter yardstick, timed only: the same load with the foreign keys set aside too.
    await database.createBaselineSchema(STRICT_BASELINE_SCHEMA);
    const strict = await baselineLoad(
      { connectionString: database.url, schema: STRICT_BASELINE_SCHEMA },
      sync.file,
      { keysAside: true },
    );
    await database.dropSchema(STRICT_BASELINE_SCHEMA);
    log(`baseline load with the foreign keys set aside too: ${strict.seconds.toFixed(1)} s`);

    const accounts = accountsFor(options);
    for (const account of [accounts.reader, ...accounts.storm]) await cli.createAccount(account);
    const service = await ServerProcess.start('service', paths.serviceMain, env, '/readyz', {
      logFile: join(workDir, 'service.log'),
    });
    servers.push(service);
    // What the service does once after an import (marking the memberships the import left due)
    // belongs to the load, not to the first scenarios.
    log(`service's calendar caught up with the import: ${(await database.calendarCaughtUp()).toFixed(1)} s`);
    // Both copies are measured in the steady state autovacuum reaches a minute after a load:
    // fresh statistics, GIN pending lists merged, visibility maps set. Part of neither load time.
    const maintenance = await database.vacuumAnalyze();
    log(`VACUUM ANALYZE of both copies and a CHECKPOINT: ${maintenance.toFixed(1)} s (untimed)`);
    const token = await issueToken(service.url, accounts.reader);
    await addBaselineAccount(database, accounts.reader, BCRYPT_COST, token);
    for (const account of accounts.storm) await addBaselineAccount(database, account, BCRYPT_COST);
    const baselineServer = await ServerProcess.start(
      'baseline',
      paths.baselineServer,
      { ...process.env, BASELINE_DATABASE_URL: database.url, BASELINE_SCHEMA },
      '/readyz',
    );
    servers.push(baselineServer);

    const stormAuthorizations = accounts.storm.map(basic);
    const serviceTarget: Target = {
      label: 'service',
      server: service,
      token,
      streamToken: () => issueToken(service.url, accounts.reader),
      importToken: () => issueToken(service.url, accounts.reader),
      ids: await walkIds(service.url, token),
      databaseUrl: database.url,
      stormAuthorizations,
      writeChanges: (count) => database.writeChanges(count),
      endAllMemberships: async () => (await database.query<{ n: number }>(END_ALL_YESTERDAY))[0].n,
      addWebhook: async (url) => void (await runNode(paths.cliMain, ['webhooks', 'add', url], env)),
    };
    const baselineTarget: Target = {
      label: 'baseline',
      server: baselineServer,
      token,
      // The baseline counts nothing per key: the reader's key serves for the streams too.
      streamToken: async () => token,
      ids: await walkIds(baselineServer.url, token),
      databaseUrl: database.url,
      stormAuthorizations,
    };
    log(`visible people: service ${serviceTarget.ids.length}, baseline ${baselineTarget.ids.length}`);
    const disagreements = await compareAnswers(
      service.url,
      baselineServer.url,
      token,
      comparisonPaths(directory, serviceTarget.ids),
    );
    if (disagreements.length > 0)
      log(`service and baseline answer differently for: ${disagreements.join(' ')}`);

    const settings = settingsFor(options, directory);
    const result: RunResult = {
      database: 'postgres',
      people: directory.people,
      import: { serviceSeconds, baselineSeconds: baseline.seconds, strictBaselineSeconds: strict.seconds },
      sync,
      scenarios: {},
      disagreements,
    };
    for (const name of options.scenarios) {
      result.scenarios[name] = await compare(name, serviceTarget, baselineTarget, settings, options.rounds);
    }
    return result;
  } finally {
    for (const undo of forget) undo();
    for (const server of servers) await server.stop();
    if (!options.keep) log(await database.cleanUp());
    else log(`kept ${database.url}`);
  }
}

async function pgliteRun(
  options: BenchOptions,
  directory: GeneratedDirectory,
  workDir: string,
): Promise<RunResult> {
  const dataDir = join(workDir, 'pglite-data');
  const baselineDir = join(workDir, 'pglite-baseline');
  const env = serviceEnv({ dataDir });
  const cli = new ServiceCli(env);
  let service: ServerProcess | undefined;
  let baselineServer: ServerProcess | undefined;
  const forget = interruption.add(async () => {
    await service?.stop();
    await baselineServer?.stop();
  });
  try {
    await cli.migrate();
    log('PGlite: importing through the CLI…');
    const firstImport = await cli.import(directory.file);
    const serviceSeconds = firstImport.seconds;
    log(`PGlite import: ${serviceSeconds.toFixed(1)} s`);
    log('PGlite sync: export, 1% changed, import --dry-run, import…');
    const sync = await runSync(cli, firstImport, join(workDir, 'sync-pglite'));
    log(`sync: dry run ${sync.dryRun.seconds.toFixed(1)} s, re-import ${sync.reimport.seconds.toFixed(1)} s`);
    const accounts = accountsFor(options);
    for (const account of [accounts.reader, ...accounts.storm]) await cli.createAccount(account);
    service = await ServerProcess.start('service (PGlite)', paths.serviceMain, env, '/readyz', {
      logFile: join(workDir, 'service-pglite.log'),
    });
    const { url } = service;
    const token = await issueToken(url, accounts.reader);
    // The embedded yardstick: raw node:http with PGlite in its own process, loaded with what the
    // service holds after the sync, the same accounts and the reader's very token.
    log('PGlite: loading the raw embedded baseline…');
    const accountsFile = join(workDir, 'baseline-pglite-accounts.json');
    await writeFile(
      accountsFile,
      JSON.stringify({
        bcryptCost: BCRYPT_COST,
        accounts: [{ account: accounts.reader, token }, ...accounts.storm.map((account) => ({ account }))],
      }),
    );
    const setup = await runNode(
      paths.baselinePgliteSetup,
      [baselineDir, sync.file, accountsFile],
      process.env,
    );
    const baselineSeconds = (JSON.parse(setup.stdout) as { seconds: number }).seconds;
    log(`raw embedded baseline load: ${baselineSeconds.toFixed(1)} s`);
    const strictDir = join(workDir, 'pglite-baseline-strict');
    const strictSetup = await runNode(
      paths.baselinePgliteSetup,
      [strictDir, sync.file, accountsFile, '--keys-aside'],
      process.env,
    );
    await rm(strictDir, { recursive: true, force: true });
    const strictBaselineSeconds = (JSON.parse(strictSetup.stdout) as { seconds: number }).seconds;
    log(`the same with the foreign keys set aside too: ${strictBaselineSeconds.toFixed(1)} s`);
    baselineServer = await ServerProcess.start(
      'baseline (PGlite)',
      paths.baselineServer,
      { ...process.env, BASELINE_PGLITE_DIR: baselineDir },
      '/readyz',
    );
    const stormAuthorizations = accounts.storm.map(basic);
    const target: Target = {
      label: 'service (PGlite)',
      server: service,
      token,
      streamToken: () => issueToken(url, accounts.reader),
      importToken: () => issueToken(url, accounts.reader),
      ids: await walkIds(service.url, token),
      stormAuthorizations,
      endAllMemberships: () => endAllInPglite(dataDir),
      addWebhook: async (hook) => void (await runNode(paths.cliMain, ['webhooks', 'add', hook], env)),
    };
    const baselineTarget: Target = {
      label: 'baseline (PGlite)',
      server: baselineServer,
      token,
      streamToken: async () => token,
      ids: await walkIds(baselineServer.url, token),
      stormAuthorizations,
    };
    const disagreements = await compareAnswers(
      service.url,
      baselineServer.url,
      token,
      comparisonPaths(directory, target.ids),
    );
    if (disagreements.length > 0)
      log(`service and baseline (PGlite) answer differently for: ${disagreements.join(' ')}`);
    const settings = settingsFor(options, directory);
    const result: RunResult = {
      database: 'pglite',
      people: directory.people,
      import: { serviceSeconds, baselineSeconds, strictBaselineSeconds },
      sync,
      scenarios: {},
      disagreements,
    };
    for (const name of options.scenarios) {
      if (name === 'changes_feed') {
        // The service holds the embedded database: the bench cannot write 100,000 changes beside it.
        log('PGlite changes_feed: skipped (PostgreSQL only)');
        continue;
      }
      log(`PGlite ${name}…`);
      result.scenarios[name] = await compare(name, target, baselineTarget, settings, options.rounds);
    }
    return result;
  } finally {
    forget();
    await service?.stop();
    await baselineServer?.stop();
    if (!options.keep) {
      await rm(dataDir, { recursive: true, force: true });
      await rm(baselineDir, { recursive: true, force: true });
    }
  }
}

async function main() {
  const olderNode = olderNodeWarning();
  if (olderNode !== null) log(olderNode);
  // `npm run bench -- webhooks`: a run of its own (scripts/bench/webhooks.ts).
  if (process.argv[2] === 'webhooks') return webhookBench();
  // `npm run bench -- csv-import`: the spreadsheet import beside the JSON one (scripts/bench/csv-import.ts).
  if (process.argv[2] === 'csv-import') return csvImportBench(process.argv.slice(3));
  const options = parseOptions(process.argv.slice(2));
  for (const file of [paths.serviceMain, paths.cliMain, paths.baselineServer]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  }
  const startedAt = new Date();
  const workDir = await mkdtemp(join(tmpdir(), 'bench-'));
  const forgetWorkDir = interruption.add(() =>
    options.keep ? Promise.resolve() : rm(workDir, { recursive: true, force: true }),
  );
  const runs: RunResult[] = [];
  const directories: GeneratedDirectory[] = [];
  // A run that fails is reported after the tables of those that completed, not instead of them.
  let failure: unknown;
  try {
    if (options.postgres) {
      log(`generating ${options.people} people…`);
      // Every visible person is a possible lookup value, as for real clients.
      const directory = await generateDirectory(join(workDir, 'directory.json'), options.people, {
        seed: options.seed,
        probes: options.people,
      });
      directories.push(directory);
      log(`${directory.people} people, ${directory.contacts} contacts, ${directory.memberships} memberships`);
      runs.push(await postgresRun(options, directory, workDir));
    }
    if (options.pglite) {
      const same = directories.find((d) => d.people === options.pglitePeople);
      const directory =
        same ??
        (await generateDirectory(join(workDir, 'directory-pglite.json'), options.pglitePeople, {
          seed: options.seed,
          probes: options.pglitePeople,
        }));
      if (!same) directories.push(directory);
      runs.push(await pgliteRun(options, directory, workDir));
    }
  } catch (error) {
    if (interruption.cleaning) throw error;
    failure = error;
  } finally {
    forgetWorkDir();
    if (!options.keep) await rm(workDir, { recursive: true, force: true });
    else log(`kept ${workDir}`);
  }

  const report = runs.map((run) => ({
    run,
    rows: rowsOf(run),
  }));
  const cold = options.coldSeconds > 0 ? `, a cold round of ${options.coldSeconds} s on a fresh process` : '';
  const node = `Node ${measuredNodeVersion()}`;
  for (const { run, rows } of report) {
    const title =
      run.database === 'postgres'
        ? `PostgreSQL, ${node}, ${run.people} people, ${options.connections} connections, ${options.rounds} × ${options.seconds} s per scenario and server${cold} (ratio = service / raw baseline)`
        : `PGlite (embedded), ${node}, ${run.people} people, ${options.connections} connections, ${options.rounds} × ${options.seconds} s per scenario and server${cold} (ratio = service / raw embedded baseline)`;
    const against = run.database === 'postgres' ? 'raw baseline' : 'raw embedded baseline';
    process.stdout.write(`\n${title}\n${renderTable(rows, against)}\n`);
    if (run.disagreements.length > 0) {
      process.stdout.write(
        `service and baseline answered differently for ${run.disagreements.length} request(s)\n`,
      );
    }
  }
  await mkdir(paths.results, { recursive: true });
  const file = join(paths.results, `bench-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    node: process.version,
    measuredNode: measuredNodeVersion(),
  };
  await writeFile(
    file,
    `${JSON.stringify({ startedAt, machine, options, directories: directories.map(({ probes, ...d }) => d), report }, null, 2)}\n`,
  );
  process.stdout.write(`\nwritten ${file}\n`);
  if (failure !== undefined) throw failure;
}

main().catch((error: unknown) => {
  // Interrupted: the failure is a consequence; the cleanup under way ends the process.
  if (interruption.cleaning) return;
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
