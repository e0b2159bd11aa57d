import autocannon from 'autocannon';

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
}

/**
 * Drives `url` with `connections` keep-alive connections for `seconds`, each request taken from
 * `next()` in turn so that lookups rotate over many values instead of hitting one cached row.
 */
export async function runLoad(
  url: string,
  next: () => RequestSpec,
  options: { connections: number; seconds: number; headers: Record<string, string> },
): Promise<LoadFigures> {
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
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
  };
}

/** A function that hands out `items` in a fixed rotation. */
export function rotation<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('nothing to rotate over');
  let index = 0;
  return () => items[index++ % items.length];
}
