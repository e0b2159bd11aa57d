import type { Probes } from './generate-directory';
import { type LoadFigures, type RequestSpec, rotation, runLoad } from './load-runner';
import { type FullListFigures, measureFullList } from './measure-full-list';
import type { ServerProcess } from './processes';
import { type SlowStreamFigures, startSlowStreams } from './slow-streams';

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
  /** `Basic ...` headers of accounts that may issue keys, for the POST /keys storm. */
  stormAuthorizations: string[];
}

export interface ScenarioSettings {
  probes: Probes;
  connections: number;
  seconds: number;
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

export interface SlowStreamsScenarioFigures {
  quiet: LoadFigures;
  during: LoadFigures;
  streams: SlowStreamFigures;
}

export type Figures =
  | { kind: 'load'; load: LoadFigures }
  | { kind: 'full-list'; fullList: FullListFigures }
  | { kind: 'storm'; storm: StormFigures }
  | { kind: 'slow-streams'; slowStreams: SlowStreamsScenarioFigures };

/** Clients asking for the full list with one key at once: the service lets STREAMS_PER_KEY of them in. */
const SLOW_STREAM_CLIENTS = 100;

export const SCENARIO_NAMES = [
  'email',
  'chat_id',
  'last_name',
  'active_pages',
  'full_list',
  'keys_storm',
  'slow_streams',
  'patch',
] as const;

export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export const SCENARIO_TITLES: Record<ScenarioName, string> = {
  email: 'lookup by email',
  chat_id: 'lookup by chat_id',
  last_name: 'last_name substring, limit=50',
  active_pages: 'active=yes, pages of 100',
  full_list: 'full unpaged list',
  keys_storm: 'chat_id lookups during POST /keys storms',
  slow_streams: `chat_id lookups during ${SLOW_STREAM_CLIENTS} slow unpaged streams of one key`,
  patch: 'PATCH /people/:id',
};

const NEW_FIRST_NAMES = ['Annie', 'Cecilia', 'Edmond', 'Giovanni', 'Henrietta', 'Maria', 'Tycho', 'Vesto'];

function get(path: string): RequestSpec {
  return { method: 'GET', path };
}

/** An evenly spread, fixed sample of `count` items. */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]);
}

/** The request stream of each throughput scenario against one target. */
function requestsOf(name: ScenarioName, target: Target, probes: Probes): () => RequestSpec {
  switch (name) {
    case 'email':
      return rotation(probes.emails.map((email) => get(`/people?email=${encodeURIComponent(email)}`)));
    case 'chat_id':
    case 'keys_storm':
    case 'slow_streams':
      return rotation(probes.chatIds.map((chatId) => get(`/people?chat_id=${encodeURIComponent(chatId)}`)));
    case 'last_name':
      return rotation(
        probes.lastNameFragments.map((part) => get(`/people?last_name=${encodeURIComponent(part)}&limit=50`)),
      );
    case 'active_pages': {
      // Page starts all over the directory, each with at least a full page after it.
      const starts = spread(target.ids.slice(0, Math.max(1, target.ids.length - 200)), 1000);
      return rotation([0, ...starts].map((after) => get(`/people?active=yes&limit=100&after=${after}`)));
    }
    case 'patch': {
      const ids = spread(target.ids, 5000);
      let n = 0;
      return () => {
        const id = ids[n % ids.length];
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

async function throughput(
  name: ScenarioName,
  target: Target,
  settings: ScenarioSettings,
  warmUp: boolean,
): Promise<LoadFigures> {
  const options = {
    connections: settings.connections,
    headers: bearer(target),
    serverPid: target.server.pid,
  };
  if (warmUp && settings.warmupSeconds > 0) {
    await runLoad(target.server.url, requestsOf(name, target, settings.probes), {
      ...options,
      seconds: settings.warmupSeconds,
    });
  }
  return runLoad(target.server.url, requestsOf(name, target, settings.probes), {
    ...options,
    seconds: settings.seconds,
  });
}

/**
 * chat_id lookups (the cheapest indexed read, so any stall shows) alone, then the same lookups
 * while other connections ask for keys with Basic auth (a bcrypt comparison each): a service that
 * hashes on the event loop stalls every lookup. Then once more while as many connections as the
 * lookups send wrong passwords, more than bcrypt can check.
 */
async function storm(target: Target, settings: ScenarioSettings): Promise<StormFigures> {
  const quiet = await throughput('keys_storm', target, settings, true);
  const nextAuthorization = rotation(target.stormAuthorizations);
  const [stormy, keys] = await Promise.all([
    runLoad(target.server.url, requestsOf('keys_storm', target, settings.probes), {
      connections: settings.connections,
      headers: bearer(target),
      seconds: settings.seconds,
      serverPid: target.server.pid,
    }),
    runLoad(
      target.server.url,
      () => ({ method: 'POST', path: '/keys', headers: { Authorization: nextAuthorization() } }),
      { connections: settings.stormConnections, headers: {}, seconds: settings.seconds },
    ),
  ]);
  const [guessing, guesses] = await Promise.all([
    runLoad(target.server.url, requestsOf('keys_storm', target, settings.probes), {
      connections: settings.connections,
      headers: bearer(target),
      seconds: settings.seconds,
      serverPid: target.server.pid,
    }),
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
  const quiet = await throughput('slow_streams', target, settings, true);
  const streams = startSlowStreams(target.server.url, streamToken, SLOW_STREAM_CLIENTS);
  try {
    // Under way before the lookups start: the streams that are let in are reading.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const during = await throughput('slow_streams', target, settings, false);
    return { quiet, during, streams: await streams.stop() };
  } finally {
    await streams.stop();
  }
}

/** Whether the scenario is a plain throughput measurement (run in alternating rounds). */
export function isThroughput(name: ScenarioName): boolean {
  return name !== 'full_list' && name !== 'keys_storm' && name !== 'slow_streams';
}

/** One measurement of the scenario on one target; `round` > 0 skips the warm-up. */
export async function runScenario(
  name: ScenarioName,
  target: Target,
  settings: ScenarioSettings,
  round = 0,
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
  if (name === 'slow_streams')
    return { kind: 'slow-streams', slowStreams: await slowStreams(target, settings) };
  return { kind: 'load', load: await throughput(name, target, settings, round === 0) };
}
