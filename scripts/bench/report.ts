import type { LoadFigures } from './load-runner';
import { type Figures, SCENARIO_TITLES, type ScenarioName } from './scenarios';

export interface RunResult {
  database: 'postgres' | 'pglite';
  people: number;
  import: { serviceSeconds: number; baselineSeconds: number | null };
  scenarios: Partial<Record<ScenarioName, { service: Figures; baseline?: Figures }>>;
  /** Request paths where the service and the baseline answered differently (ids aside). */
  disagreements: string[];
}

export interface Row {
  scenario: string;
  service: string;
  baseline: string;
  ratio: number | null;
  target: string;
  result: 'PASS' | 'FAIL' | 'INVALID' | '-';
}

const MB = 1024 * 1024;
const LOOKUPS: ScenarioName[] = ['email', 'chat_id', 'last_name', 'active_pages'];

function load(figures: LoadFigures): string {
  const cpu =
    figures.serverCpuMsPerRequest === null ? '' : `, cpu ${figures.serverCpuMsPerRequest.toFixed(2)} ms/req`;
  return `${Math.round(figures.requestsPerSecond)} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms${cpu}`;
}

function clean(...all: (LoadFigures | undefined)[]): boolean {
  return all.every((figures) => figures === undefined || (figures.non2xx === 0 && figures.errors === 0));
}

function verdict(ok: boolean, valid: boolean): Row['result'] {
  if (!valid) return 'INVALID';
  return ok ? 'PASS' : 'FAIL';
}

function loadRow(name: ScenarioName, service: Figures, baseline: Figures | undefined): Row {
  if (service.kind !== 'load') throw new Error(`${name}: unexpected figures`);
  const base = baseline?.kind === 'load' ? baseline.load : undefined;
  const ratio = base ? service.load.requestsPerSecond / base.requestsPerSecond : null;
  const targeted = LOOKUPS.includes(name);
  return {
    scenario: SCENARIO_TITLES[name],
    service: load(service.load),
    baseline: base ? load(base) : '',
    ratio,
    target: targeted && base ? 'req/s ≥ 0.70 × baseline' : '(none)',
    result:
      targeted && ratio !== null
        ? verdict(ratio >= 0.7, clean(service.load, base))
        : clean(service.load, base)
          ? '-'
          : 'INVALID',
  };
}

function fullListRow(service: Figures, baseline: Figures | undefined): Row {
  if (service.kind !== 'full-list') throw new Error('full_list: unexpected figures');
  const base = baseline?.kind === 'full-list' ? baseline.fullList : undefined;
  const describe = (f: typeof service.fullList) =>
    `${f.seconds.toFixed(2)} s, ${(f.bytes / MB).toFixed(1)} MB, ${f.people} people, RSS +${Math.round(f.rssGrowthBytes / MB)} MB`;
  const ratio = base ? service.fullList.seconds / base.seconds : null;
  const memoryOk = service.fullList.rssGrowthBytes <= 100 * MB;
  const complete = base === undefined || base.people === service.fullList.people;
  return {
    scenario: SCENARIO_TITLES.full_list,
    service: describe(service.fullList),
    baseline: base ? describe(base) : '',
    ratio,
    target: base ? 'time ≤ 1.5 × baseline, RSS +≤ 100 MB' : 'RSS +≤ 100 MB',
    result: verdict((ratio === null || ratio <= 1.5) && memoryOk, complete),
  };
}

function stormRow(service: Figures, baseline: Figures | undefined): Row {
  if (service.kind !== 'storm') throw new Error('keys_storm: unexpected figures');
  const times = (f: LoadFigures, quiet: LoadFigures) => `×${(f.p99Ms / quiet.p99Ms).toFixed(2)}`;
  const describe = (f: typeof service.storm) =>
    `p99 ${f.quiet.p99Ms} → ${f.storm.p99Ms} ms (${times(f.storm, f.quiet)}), ` +
    `${Math.round(f.storm.requestsPerSecond)} req/s, ${f.keys.requests} keys; ` +
    `wrong passwords: p99 ${f.guessing.p99Ms} ms (${times(f.guessing, f.quiet)}), ` +
    `answers ${JSON.stringify(f.guesses.statusCodes)}`;
  const ratio = service.storm.storm.p99Ms / service.storm.quiet.p99Ms;
  const base = baseline?.kind === 'storm' ? baseline.storm : undefined;
  const lookupsClean = clean(service.storm.quiet, service.storm.storm, service.storm.guessing);
  // Keys must really have been issued and wrong passwords really checked, or a storm cost nothing;
  // besides those, only sign-ins refused because they could not start within a second (503).
  const answered = (f: LoadFigures, checked: string) =>
    (f.statusCodes[checked] ?? 0) > 0 &&
    f.errors === 0 &&
    Object.keys(f.statusCodes).every((code) => code === checked || code === '503');
  const stormHappened = answered(service.storm.keys, '201');
  const guessesChecked = answered(service.storm.guesses, '401');
  return {
    scenario: SCENARIO_TITLES.keys_storm,
    service: describe(service.storm),
    baseline: base ? describe(base) : '',
    ratio,
    target: 'both storms p99 ≤ 2 × quiet p99',
    result: verdict(
      ratio <= 2 && service.storm.guessing.p99Ms <= 2 * service.storm.quiet.p99Ms,
      lookupsClean && stormHappened && guessesChecked,
    ),
  };
}

function slowStreamsRow(service: Figures, baseline: Figures | undefined): Row {
  if (service.kind !== 'slow-streams') throw new Error('slow_streams: unexpected figures');
  const describe = ({ quiet, during, streams }: typeof service.slowStreams) => {
    const latency =
      during.requests === 0
        ? `p99 ${quiet.p99Ms} ms → no lookup answered`
        : `p50 ${quiet.p50Ms} → ${during.p50Ms} ms, p99 ${quiet.p99Ms} → ${during.p99Ms} ms ` +
          `(×${(during.p99Ms / quiet.p99Ms).toFixed(2)})`;
    return (
      `${latency}, ${during.requests} lookups, ${during.errors} errors; ` +
      `streams ${streams.served} served, ${streams.refused} refused, ${streams.failed} failed`
    );
  };
  const figures = service.slowStreams;
  const ratio = figures.during.p99Ms / figures.quiet.p99Ms;
  const base = baseline?.kind === 'slow-streams' ? baseline.slowStreams : undefined;
  // The streams must really have run, and the lookups all answered.
  const valid =
    clean(figures.quiet, figures.during) && figures.during.requests > 0 && figures.streams.served > 0;
  return {
    scenario: SCENARIO_TITLES.slow_streams,
    service: describe(figures),
    baseline: base ? describe(base) : '',
    ratio,
    target: 'p99 ≤ 2 × quiet p99',
    result: verdict(ratio <= 2, valid),
  };
}

export function rowsOf(run: RunResult): Row[] {
  const rows: Row[] = [];
  const limit = (15 * run.people) / 100_000;
  const { serviceSeconds, baselineSeconds } = run.import;
  rows.push({
    scenario: `import ${run.people} people (CLI)`,
    service: `${serviceSeconds.toFixed(1)} s`,
    baseline: baselineSeconds === null ? '' : `${baselineSeconds.toFixed(1)} s (raw pg unnest)`,
    ratio: baselineSeconds === null ? null : serviceSeconds / baselineSeconds,
    target: run.database === 'postgres' ? `≤ ${limit.toFixed(1)} s (15 s per 100,000)` : '(none)',
    result: run.database === 'postgres' ? verdict(serviceSeconds <= limit, true) : '-',
  });
  for (const [name, figures] of Object.entries(run.scenarios) as [
    ScenarioName,
    RunResult['scenarios'][ScenarioName],
  ][]) {
    if (!figures) continue;
    if (name === 'full_list') rows.push(fullListRow(figures.service, figures.baseline));
    else if (name === 'keys_storm') rows.push(stormRow(figures.service, figures.baseline));
    else if (name === 'slow_streams') rows.push(slowStreamsRow(figures.service, figures.baseline));
    else rows.push(loadRow(name, figures.service, figures.baseline));
  }
  return rows;
}

/** A plain-text table, columns padded to their widest cell. */
export function renderTable(rows: Row[], withBaseline: boolean): string {
  const header = withBaseline
    ? ['scenario', 'service', 'baseline', 'ratio', 'target', 'result']
    : ['scenario', 'service', 'target', 'result'];
  const cells = rows.map((row) =>
    withBaseline
      ? [
          row.scenario,
          row.service,
          row.baseline,
          row.ratio === null ? '' : row.ratio.toFixed(2),
          row.target,
          row.result,
        ]
      : [row.scenario, row.service, row.target, row.result],
  );
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((c) => c[i].length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}
