import type { Probes } from './generate-directory';
import { type LoadFigures, type RequestSpec, rotation, runLoad } from './load-runner';
import { Random } from './random';
import { type FullListFigures, measureFullList } from './measure-full-list';
import { type FeedFigures, followFeed } from './follow-feed';
import type { ServerProcess } from './processes';
import { type PageKind, type PageLoopFigures, startPageLoops } from './page-loops';
import { IMPORT_LOOP_PEOPLE, type ImportLoopFigures, startImportLoop } from './import-loop';
import { type SlowStreamFigures, startSlowStreams } from './slow-streams';
import { type CalendarLapseFigures, calendarLapse } from './calendar-lapse';

/** A server under test with what the scenarios need to address it. */
export interface Target {
  label: string;
  server: ServerProcess;
  token: string;
  /**
   * Another key of the same account, for the slow streams (the service counts streams per key).
   * Issued when the scenario runs, so that the other scenarios measure the server as before.
   */
  streamToken: () => Promise<string>;
  /** Ids of the visible people, ascending (from walking the pages). */
  ids: number[];
  /** The PostgreSQL database the server reads, whose backends' CPU is measured with its own. */
  databaseUrl?: string;
  /** `Basic ...` headers of accounts that may issue keys, for the POST /keys storm. */
  stormAuthorizations: string[];
  /** A key with the manage permission, for the import loop; absent where there is no POST /imports. */
  importToken?: () => Promise<string>;
  /** Writes changes for the change feed scenario; absent where the scenario cannot run. */
  writeChanges?: (count: number) => Promise<void>;
  /** For calendar_lapse: END_ALL_YESTERDAY on the stopped service's database (rows changed), and a webhook. */
  endAllMemberships?: () => Promise<number>;
  addWebhook?: (url: string) => Promise<void>;
}

export interface ScenarioSettings {
  probes: Probes;
  connections: number;
  seconds: number;
  /** Seconds of the cold round: a fresh server process, measured from its first request. */
  coldSeconds: number;
  warmupSeconds: number;
  stormConnections: number;
  fullListRepetitions: number;
}

export interface StormFigures {
  quiet: LoadFigures;
  storm: LoadFigures;
  keys: LoadFigures;
  /** The lookups while many connections send wrong passwords, and those POST /keys answers. */
  guessing: LoadFigures;
  guesses: LoadFigures;
}

export interface PageLoopsScenarioFigures {
  quiet: LoadFigures;
  people: LoadFigures;
  peopleLoops: PageLoopFigures;
  changes: LoadFigures;
  changesLoops: PageLoopFigures;
}

export interface SlowStreamsScenarioFigures {
  quiet: LoadFigures;
  during: LoadFigures;
  streams: SlowStreamFigures;
}

export interface ImportLookupsScenarioFigures {
  quiet: LoadFigures;
  during: LoadFigures;
  imports: ImportLoopFigures;
}

export type Figures =
  | { kind: 'load'; load: LoadFigures; cold?: LoadFigures }
  | { kind: 'full-list'; fullList: FullListFigures }
  | { kind: 'storm'; storm: StormFigures }
  | { kind: 'slow-streams'; slowStreams: SlowStreamsScenarioFigures }
  | { kind: 'page-loops'; pageLoops: PageLoopsScenarioFigures }
  | { kind: 'import-lookups'; importLookups: ImportLookupsScenarioFigures }
  | { kind: 'feed'; feed: FeedFigures }
  | { kind: 'calendar-lapse'; calendarLapse: CalendarLapseFigures };

/** Changes the feed scenario follows (the target: 20,000 a second read). */
export const FEED_CHANGES = 100_000;

/** Clients asking for the full list with one key at once: the service lets STREAMS_PER_KEY of them in. */
export const SLOW_STREAM_CLIENTS = 100;

/** SPEC §4, fair sharing: one key's loops of the largest pages, of people and of changes. */
const PAGE_LOOPS = 16;
/** The other key: a chat bot's few lookups at a time, whose latency is the figure, not its throughput. */
const PAGE_LOOKUP_CONNECTIONS = 4;

export const SCENARIO_NAMES = [
  'email',
  'email_limit',
  'chat_id',
  'chat_id_limit',
  'last_name',
  'active_pages',
  'full_list',
  'keys_storm',
  'slow_streams',
  'page_loops',
  'import_lookups',
  'patch',
  'changes_feed',
  // Last: it ends every membership in force.
  'calendar_lapse',
] as const;

export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export const SCENARIO_TITLES: Record<ScenarioName, string> = {
  email: 'email lookup, no limit (the chat bot)',
  email_limit: 'email lookup, limit=1',
  chat_id: 'chat_id lookup, no limit (the chat bot)',
  chat_id_limit: 'chat_id lookup, limit=1',
  last_name: 'last_name substring, limit=50',
  active_pages: 'active=yes, limit=100, random after',
  full_list: 'full unpaged list',
  keys_storm: 'chat_id lookups during POST /keys storms',
  slow_streams: `chat_id lookups during ${SLOW_STREAM_CLIENTS} slow unpaged streams of one key`,
  page_loops: `another key's chat_id lookups (${PAGE_LOOKUP_CONNECTIONS} connections) during ${PAGE_LOOPS} loops of pages of 1000 of one key`,
  import_lookups: `another key's chat_id lookups (${PAGE_LOOKUP_CONNECTIONS} connections) during POST /imports of ${IMPORT_LOOP_PEOPLE.toLocaleString('en')} changed people, again and again`,
  patch: 'PATCH /people/:id',
  changes_feed: 'GET /changes, following 100,000 changes, pages of 1000',
  calendar_lapse: `another key's chat_id lookups (${PAGE_LOOKUP_CONNECTIONS} connections) while the calendar tells every membership ended on one day and webhooks deliver it`,
};

const NEW_FIRST_NAMES = ['Annie', 'Cecilia', 'Edmond', 'Giovanni', 'Henrietta', 'Maria', 'Tycho', 'Vesto'];

function get(path: string): RequestSpec {
  return { method: 'GET', path };
}

/**
 * Each request draws its value at random out of the whole directory, as clients do: a rotation
 * over a few thousand values measures a warmer, easier case (those rows and their index pages
 * stay cached). Seeded, so that both servers are asked the same sequence.
 */
function drawing<T>(
  items: readonly T[],
  seed: number,
  toRequest: (item: T) => RequestSpec,
): () => RequestSpec {
  if (items.length === 0) throw new Error('nothing to draw from');
  const random = new Random(seed);
  return () => toRequest(random.pick(items));
}

const byEmail = (suffix: string) => (email: string) =>
  get(`/people?email=${encodeURIComponent(email)}${suffix}`);
const byChatId = (suffix: string) => (chatId: string) =>
  get(`/people?chat_id=${encodeURIComponent(chatId)}${suffix}`);

/** The request stream of each throughput scenario against one target; `seed` varies per round. */
export function requestsOf(name: ScenarioName, target: Target, probes: Probes, seed = 1): () => RequestSpec {
  switch (name) {
    case 'email':
      return drawing(probes.emails, seed, byEmail(''));
    case 'email_limit':
      return drawing(probes.emails, seed, byEmail('&limit=1'));
    case 'chat_id':
    case 'keys_storm':
    case 'slow_streams':
    case 'page_loops':
    case 'import_lookups':
    case 'calendar_lapse':
      return drawing(probes.chatIds, seed, byChatId(''));
    case 'chat_id_limit':
      return drawing(probes.chatIds, seed, byChatId('&limit=1'));
    case 'last_name':
      return drawing(probes.lastNameFragments, seed, (part) =>
        get(`/people?last_name=${encodeURIComponent(part)}&limit=50`),
      );
    case 'active_pages': {
      // A page start anywhere in the directory (0 included: the first page).
      const starts = [0, ...target.ids.slice(0, Math.max(1, target.ids.length - 1))];
      return drawing(starts, seed, (after) => get(`/people?active=yes&limit=100&after=${after}`));
    }
    case 'patch': {
      const random = new Random(seed);
      let n = 0;
      return () => {
        const id = random.pick(target.ids);
        const body = JSON.stringify({ 'person[first_name]': NEW_FIRST_NAMES[n % NEW_FIRST_NAMES.length] });
        n++;
        return {
          method: 'PATCH',
          path: `/people/${id}`,
          headers: { 'Content-Type': 'application/json' },
          body,
        };
      };
    }
    default:
      throw new Error(`${name} is not a throughput scenario`);
  }
}

function bearer(target: Target): Record<string, string> {
  return { Authorization: `Bearer ${target.token}` };
}

/** What a throughput measurement is: a fresh server's first seconds, a warm-up, or a measured round. */
export type Phase = 'cold' | 'warm-up' | 'measure';

/**
 * One load of the scenario against the target. `seed` picks the random values: each round draws
 * another sequence, the same for both servers.
 */
export function throughput(
  name: ScenarioName,
  target: Target,
  settings: ScenarioSettings,
  phase: Phase = 'measure',
  seed = 1,
): Promise<LoadFigures> {
  const seconds =
    phase === 'cold' ? settings.coldSeconds : phase === 'warm-up' ? settings.warmupSeconds : settings.seconds;
  return runLoad(target.server.url, requestsOf(name, target, settings.probes, seed), {
    connections: settings.connections,
    headers: bearer(target),
    serverPid: target.server.pid,
    databaseUrl: target.databaseUrl,
    seconds,
  });
}

async function warmedUp(name: ScenarioName, target: Target, settings: ScenarioSettings, seed: number) {
  if (settings.warmupSeconds > 0) await throughput(name, target, settings, 'warm-up', seed + 1000);
  return throughput(name, target, settings, 'measure', seed);
}

/**
 * chat_id lookups (the cheapest indexed read, so any stall shows) alone, then the same lookups
 * while other connections ask for keys with Basic auth (a bcrypt comparison each): a service that
 * hashes on the event loop stalls every lookup. Then once more while as many connections as the
 * lookups send wrong passwords, more than bcrypt can check.
 */
async function storm(target: Target, settings: ScenarioSettings): Promise<StormFigures> {
  const quiet = await warmedUp('keys_storm', target, settings, 11);
  const nextAuthorization = rotation(target.stormAuthorizations);
  const [stormy, keys] = await Promise.all([
    throughput('keys_storm', target, settings, 'measure', 12),
    runLoad(
      target.server.url,
      () => ({ method: 'POST', path: '/keys', headers: { Authorization: nextAuthorization() } }),
      { connections: settings.stormConnections, headers: {}, seconds: settings.seconds },
    ),
  ]);
  const [guessing, guesses] = await Promise.all([
    throughput('keys_storm', target, settings, 'measure', 13),
    runLoad(target.server.url, wrongPasswords(), {
      connections: settings.connections,
      headers: {},
      seconds: settings.seconds,
    }),
  ]);
  return { quiet, storm: stormy, keys, guessing, guesses };
}

/**
 * Wrong passwords as a spread-out attack sends them: a new username and a new client address
 * (X-Forwarded-For, which the service trusts from loopback here) each time, so that the lockout
 * never refuses one before its password is checked and every guess costs a bcrypt comparison.
 */
function wrongPasswords(): () => RequestSpec {
  let n = 0;
  return () => {
    n++;
    const credentials = Buffer.from(`bench-guess-${n}:not-the-password`).toString('base64');
    return {
      method: 'POST',
      path: '/keys',
      headers: {
        Authorization: `Basic ${credentials}`,
        'X-Forwarded-For': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      },
    };
  };
}

/**
 * chat_id lookups alone, then the same lookups while one other key asks for the full unpaged list
 * on 100 connections and reads it slowly: the lookups must not wait for the streams' batches.
 */
async function slowStreams(target: Target, settings: ScenarioSettings): Promise<SlowStreamsScenarioFigures> {
  const streamToken = await target.streamToken();
  // A key's first use records last_used_at: a write, whose commit on PGlite holds up the whole
  // process until the disk has it. Done before measuring, it does not count as the streams' doing.
  await fetch(`${target.server.url}/people?limit=1`, { headers: { Authorization: `Bearer ${streamToken}` } });
  const quiet = await warmedUp('slow_streams', target, settings, 21);
  const streams = startSlowStreams(target.server.url, streamToken, SLOW_STREAM_CLIENTS);
  try {
    // Under way before the lookups start: the streams that are let in are reading.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const during = await throughput('slow_streams', target, settings, 'measure', 22);
    return { quiet, during, streams: await streams.stop() };
  } finally {
    await streams.stop();
  }
}

/**
 * Another key's chat_id lookups, a few at a time, alone; then while one key runs 16 loops of
 * `GET /people?limit=1000`, then 16 of `GET /changes?limit=1000` (SPEC §4, fair sharing: the
 * lookups' p99 within 3× of the quiet one, on either database).
 */
async function pageLoops(target: Target, settings: ScenarioSettings): Promise<PageLoopsScenarioFigures> {
  const loopToken = await target.streamToken();
  // A key's first use records last_used_at: a write, done before measuring.
  await fetch(`${target.server.url}/people?limit=1`, { headers: { Authorization: `Bearer ${loopToken}` } });
  const lookups = (seed: number, phase: Phase = 'measure') =>
    throughput('page_loops', target, { ...settings, connections: PAGE_LOOKUP_CONNECTIONS }, phase, seed);
  if (settings.warmupSeconds > 0) await lookups(1031, 'warm-up');
  const quiet = await lookups(31);
  const maxId = target.ids[target.ids.length - 1] ?? 1;
  const during = async (kind: PageKind, seed: number) => {
    const loops = startPageLoops(target.server.url, loopToken, kind, PAGE_LOOPS, maxId);
    try {
      // Under way before the lookups start.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const figures = await lookups(seed);
      return { figures, loops: await loops.stop() };
    } finally {
      await loops.stop();
    }
  };
  const people = await during('people', 32);
  const changes = await during('changes', 33);
  return {
    quiet,
    people: people.figures,
    peopleLoops: people.loops,
    changes: changes.figures,
    changesLoops: changes.loops,
  };
}

/**
 * Another key's chat_id lookups, a few at a time, alone; then while one `manage` key imports
 * again and again, each import updating IMPORT_LOOP_PEOPLE people (issue 46: an import must not
 * hold every other key up). On PGlite an import holds the one session until it commits
 * (docs/decisions.md, "Fair sharing between keys"): the figure shows what that costs.
 */
async function importLookups(
  target: Target,
  settings: ScenarioSettings,
): Promise<ImportLookupsScenarioFigures> {
  if (target.importToken === undefined) throw new Error(`${target.label} has no POST /imports`);
  const importToken = await target.importToken();
  // A key's first use records last_used_at: a write, done before measuring.
  await fetch(`${target.server.url}/people?limit=1`, { headers: { Authorization: `Bearer ${importToken}` } });
  const lookups = (seed: number, phase: Phase = 'measure') =>
    throughput('import_lookups', target, { ...settings, connections: PAGE_LOOKUP_CONNECTIONS }, phase, seed);
  if (settings.warmupSeconds > 0) await lookups(1041, 'warm-up');
  const quiet = await lookups(41);
  const loop = startImportLoop(target.server.url, importToken, target.ids);
  try {
    // Under way before the lookups start: the first import is being read and checked.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const during = await lookups(42);
    return { quiet, during, imports: await loop.stop() };
  } finally {
    await loop.stop();
  }
}

/** The other key's lookups: a chat bot's few at a time; a warm-up of a second at least. */
function settingsForLookups(settings: ScenarioSettings): ScenarioSettings {
  return {
    ...settings,
    connections: PAGE_LOOKUP_CONNECTIONS,
    warmupSeconds: Math.max(1, settings.warmupSeconds),
  };
}

/** Whether the scenario is a plain throughput measurement (run in alternating rounds). */
export function isThroughput(name: ScenarioName): boolean {
  return (
    name !== 'full_list' &&
    name !== 'keys_storm' &&
    name !== 'slow_streams' &&
    name !== 'page_loops' &&
    name !== 'import_lookups' &&
    name !== 'changes_feed' &&
    name !== 'calendar_lapse'
  );
}

/** Scenarios the baseline has nothing to compare with. */
export function isServiceOnly(name: ScenarioName): boolean {
  return (
    name === 'changes_feed' || name === 'page_loops' || name === 'import_lookups' || name === 'calendar_lapse'
  );
}

/** The scenario on one target, for those that are not throughput rounds. */
export async function runScenario(
  name: ScenarioName,
  target: Target,
  settings: ScenarioSettings,
): Promise<Figures> {
  if (name === 'full_list') {
    const fullList = await measureFullList(
      target.server.url,
      target.token,
      target.server.pid,
      settings.fullListRepetitions,
    );
    return { kind: 'full-list', fullList };
  }
  if (name === 'keys_storm') return { kind: 'storm', storm: await storm(target, settings) };
  if (name === 'changes_feed') {
    if (target.writeChanges === undefined) throw new Error(`${target.label} cannot write changes`);
    return {
      kind: 'feed',
      feed: await followFeed(target.server.url, target.token, FEED_CHANGES, target.writeChanges),
    };
  }
  if (name === 'slow_streams')
    return { kind: 'slow-streams', slowStreams: await slowStreams(target, settings) };
  if (name === 'page_loops') return { kind: 'page-loops', pageLoops: await pageLoops(target, settings) };
  if (name === 'import_lookups')
    return { kind: 'import-lookups', importLookups: await importLookups(target, settings) };
  if (name === 'calendar_lapse') {
    const { endAllMemberships, addWebhook } = target;
    if (endAllMemberships === undefined || addWebhook === undefined)
      throw new Error(`${target.label} cannot end memberships`);
    const lookups = settingsForLookups(settings);
    const figures = await calendarLapse({
      url: () => target.server.url,
      token: target.token,
      restart: () => target.server.restart(),
      stop: () => target.server.stop(),
      endAll: endAllMemberships,
      addWebhook,
      lookups: (seed, warmUp = false) =>
        throughput('calendar_lapse', target, lookups, warmUp ? 'warm-up' : 'measure', seed),
    });
    return { kind: 'calendar-lapse', calendarLapse: figures };
  }
  throw new Error(`${name} runs in throughput rounds`);
}
