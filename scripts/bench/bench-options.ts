import { SCENARIO_NAMES, type ScenarioName } from './scenarios';

export interface BenchOptions {
  people: number;
  seconds: number;
  coldSeconds: number;
  rounds: number;
  warmupSeconds: number;
  connections: number;
  stormConnections: number;
  fullListRepetitions: number;
  scenarios: ScenarioName[];
  postgres: boolean;
  pglite: boolean;
  pglitePeople: number;
  keep: boolean;
  seed: number;
}

export const USAGE = `npm run bench -- [options]
  --people N             people in the generated directory (default 100000)
  --quick                a quick look: 20,000 people, 3 s rounds, 2 s cold rounds, no storms
                         (the storms and slow streams still run when named with --only)
  --duration S           seconds of each measured round per scenario and server (default 8)
  --rounds R             alternating warm rounds of each throughput scenario (default 2)
  --cold S               seconds of the cold round, on a freshly started server (default 5; 0: none)
  --warmup S             seconds of warm-up before the warm rounds (default 2)
  --connections C        concurrent connections (default 32)
  --storm-connections K  connections asking for keys during the storm (default 4)
  --repetitions R        timed requests of the full list (default 3)
  --only a,b             scenarios: ${SCENARIO_NAMES.join(', ')}
  --pglite               also run the service on PGlite (embedded) and report it in its own table
  --pglite-only          only the PGlite run
  --pglite-people N      people for the PGlite run (default: --people)
  --keep                 keep the databases (and the generated file) afterwards
  --seed N               seed of the generated directory (default 20240601)
Environment: DATABASE_URL (an empty database to use) or BENCH_POSTGRES_URL (a server on which to
create a fresh database; default postgres://postgres@127.0.0.1:5432/postgres). BENCH_NODE: the node
binary that runs the servers and the tool (default: this one when it is Node 24 or later, else
Node 24 fetched with npx), the service and the raw servers alike. BASELINE_PREPARE=0: the raw
servers send their statements unnamed, planned every time (the yardstick before 5 December 2026).`;

function positive(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} needs a positive whole number`);
  return value;
}

/** The scenarios that load the service for long, left out of a quick look unless named. */
const LONG_SCENARIOS: readonly ScenarioName[] = ['keys_storm', 'slow_streams', 'calendar_lapse'];

export function parseOptions(argv: string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const options: BenchOptions = {
    people: quick ? 20_000 : 100_000,
    seconds: quick ? 3 : 8,
    coldSeconds: quick ? 2 : 5,
    rounds: 2,
    warmupSeconds: quick ? 1 : 2,
    connections: 32,
    stormConnections: 4,
    fullListRepetitions: quick ? 2 : 3,
    scenarios: SCENARIO_NAMES.filter((name) => !quick || !LONG_SCENARIOS.includes(name)),
    postgres: true,
    pglite: false,
    pglitePeople: 0,
    keep: false,
    seed: 20240601,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => argv[++i];
    switch (flag) {
      case '--people':
        options.people = positive(flag, value());
        break;
      case '--quick':
        break;
      case '--duration':
        options.seconds = positive(flag, value());
        break;
      case '--cold': {
        const seconds = Number(value());
        if (!Number.isInteger(seconds) || seconds < 0)
          throw new Error('--cold needs a whole number, 0 or more');
        options.coldSeconds = seconds;
        break;
      }
      case '--rounds':
        options.rounds = positive(flag, value());
        break;
      case '--warmup':
        options.warmupSeconds = Number(value());
        break;
      case '--connections':
        options.connections = positive(flag, value());
        break;
      case '--storm-connections':
        options.stormConnections = positive(flag, value());
        break;
      case '--repetitions':
        options.fullListRepetitions = positive(flag, value());
        break;
      case '--only': {
        const names = (value() ?? '').split(',').filter(Boolean);
        const unknown = names.filter((n) => !(SCENARIO_NAMES as readonly string[]).includes(n));
        if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}`);
        options.scenarios = SCENARIO_NAMES.filter((n) => names.includes(n));
        break;
      }
      case '--pglite':
        options.pglite = true;
        break;
      case '--pglite-only':
        options.pglite = true;
        options.postgres = false;
        break;
      case '--pglite-people':
        options.pglitePeople = positive(flag, value());
        break;
      case '--keep':
        options.keep = true;
        break;
      case '--seed':
        options.seed = positive(flag, value());
        break;
      case '--help':
      case '-h':
        throw new Error(USAGE);
      default:
        throw new Error(`unknown option ${flag}\n${USAGE}`);
    }
  }
  if (options.pglitePeople === 0) options.pglitePeople = options.people;
  return options;
}
