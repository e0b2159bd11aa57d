import autocannon from 'autocannon';
import { backendCpu, cpuBetween, cpuMilliseconds } from './processes';

export interface RequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses other than 2xx and transport errors: a run with any is not a fair figure. */
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  /** CPU the server process spent per answered request (user + system), when its pid was given. */
  serverCpuMsPerRequest: number | null;
  /**
   * CPU PostgreSQL's backends on the server's database spent per answered request, when the
   * database was given: the other half of a request's cost on a machine whose cores both share.
   */
  databaseCpuMsPerRequest: number | null;
}

/**
 * Drives `url` with `connections` keep-alive connections for `seconds`, each request taken from
 * `next()` in turn so that lookups rotate over many values instead of hitting one cached row.
 */
export async function runLoad(
  url: string,
  next: () => RequestSpec,
  options: {
    connections: number;
    seconds: number;
    headers: Record<string, string>;
    serverPid?: number;
    /** The database the server uses, on this machine (not PGlite's, in the server's process). */
    databaseUrl?: string;
  },
): Promise<LoadFigures> {
  const databaseBefore = options.databaseUrl ? await backendCpu(options.databaseUrl) : null;
  const cpuBefore = options.serverPid ? cpuMilliseconds(options.serverPid) : 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    timeout: 30,
    headers: options.headers,
    requests: [
      {
        setupRequest: (request) => {
          const spec = next();
          request.method = spec.method;
          request.path = spec.path;
          request.headers = { ...options.headers, ...spec.headers };
          request.body = spec.body;
          return request;
        },
      },
    ],
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count;
  const cpu = options.serverPid ? cpuMilliseconds(options.serverPid) - cpuBefore : null;
  const databaseCpu =
    options.databaseUrl && databaseBefore
      ? cpuBetween(databaseBefore, await backendCpu(options.databaseUrl))
      : null;
  const perRequest = (ms: number | null) =>
    ms === null || result.requests.total === 0
      ? null
      : Math.round((ms / result.requests.total) * 1000) / 1000;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
    serverCpuMsPerRequest: perRequest(cpu),
    databaseCpuMsPerRequest: perRequest(databaseCpu),
  };
}

/** A function that hands out `items` in a fixed rotation. */
export function rotation<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('nothing to rotate over');
  let index = 0;
  return () => items[index++ % items.length];
}

/** Rounds of the same scenario as one figure: throughput and latencies averaged, counts summed. */
export function combineLoads(rounds: LoadFigures[]): LoadFigures {
  const mean = (pick: (f: LoadFigures) => number) =>
    Math.round((rounds.reduce((sum, f) => sum + pick(f), 0) / rounds.length) * 10) / 10;
  const sum = (pick: (f: LoadFigures) => number) => rounds.reduce((total, f) => total + pick(f), 0);
  const statusCodes: Record<string, number> = {};
  for (const round of rounds) {
    for (const [code, count] of Object.entries(round.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  return {
    requestsPerSecond: mean((f) => f.requestsPerSecond),
    p50Ms: mean((f) => f.p50Ms),
    p99Ms: mean((f) => f.p99Ms),
    requests: sum((f) => f.requests),
    non2xx: sum((f) => f.non2xx),
    errors: sum((f) => f.errors),
    statusCodes,
    serverCpuMsPerRequest: rounds.every((f) => f.serverCpuMsPerRequest !== null)
      ? mean((f) => (f.serverCpuMsPerRequest ?? 0) * 100) / 100
      : null,
    databaseCpuMsPerRequest: rounds.every((f) => f.databaseCpuMsPerRequest !== null)
      ? mean((f) => (f.databaseCpuMsPerRequest ?? 0) * 100) / 100
      : null,
  };
}
