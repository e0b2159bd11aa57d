import { request } from 'node:http';
import { residentBytes } from './processes';

export interface FullListFigures {
  /** Median over the repetitions, first byte sent to last byte received. */
  seconds: number;
  allSeconds: number[];
  bytes: number;
  people: number;
  /** Growth of the server's resident memory over its level before the first full-list request. */
  rssGrowthBytes: number;
  rssBeforeBytes: number;
  rssPeakBytes: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function fetchAll(url: string, token: string, keepBody: boolean) {
  return new Promise<{ seconds: number; bytes: number; body: Buffer | null }>((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let bytes = 0;
    const req = request(`${url}/people`, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET /people answered ${res.statusCode}`));
        return;
      }
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (keepBody) chunks.push(chunk);
      });
      res.on('end', () =>
        resolve({
          seconds: (performance.now() - started) / 1000,
          bytes,
          body: keepBody ? Buffer.concat(chunks) : null,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The unpaged list, one request at a time, while the server's RSS is sampled every 10 ms from
 * /proc. A first, untimed request is parsed to count the people (proof the stream is whole and
 * valid JSON) and warms the server; the timed ones are only counted in bytes so the client stays light.
 */
export async function measureFullList(
  url: string,
  token: string,
  pid: number,
  repetitions: number,
): Promise<FullListFigures> {
  const rssBefore = residentBytes(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, residentBytes(pid));
  }, 10);
  const times: number[] = [];
  let bytes = 0;
  let people = 0;
  try {
    const check = await fetchAll(url, token, true);
    people = (JSON.parse(check.body?.toString('utf8') ?? '[]') as unknown[]).length;
    for (let i = 0; i < repetitions; i++) {
      const result = await fetchAll(url, token, false);
      times.push(result.seconds);
      bytes = result.bytes;
    }
  } finally {
    clearInterval(sampler);
  }
  rssPeak = Math.max(rssPeak, residentBytes(pid));
  return {
    seconds: median(times),
    allSeconds: times,
    bytes,
    people,
    rssGrowthBytes: rssPeak - rssBefore,
    rssBeforeBytes: rssBefore,
    rssPeakBytes: rssPeak,
  };
}
