import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchDatabase } from './bench-database';
import { runLoad } from './load-runner';
import { paths } from './paths';
import { runNode, ServerProcess } from './processes';
import { ServiceCli } from './service-cli';
import { walkIds } from './walk-ids';

/**
 * `npm run bench -- webhooks`: webhook delivery latency to a healthy receiver with one instance
 * and with two on one PostgreSQL (target p99 ≤ 1 s), and PATCH throughput with three
 * subscriptions against none (target ≥ 80 %). The receiver runs in this process on loopback.
 */

const PEOPLE = 3000;
const LATENCY_CHANGES = 200;
const LATENCY_RATE_PER_S = 20;
const LOAD_SECONDS = 8;
const LOAD_CONNECTIONS = 32;

function log(message: string) {
  process.stderr.write(`[bench webhooks ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Answers 204 at once and tells who waits for which person's change when it came. */
class Receiver {
  private readonly server = http.createServer((request, response) => this.receive(request, response));
  private readonly waiting = new Map<number, (at: number) => void>();
  received = 0;

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves with the time the next delivery about `personId` arrives. */
  arrival(personId: number): Promise<number> {
    return new Promise((resolve) => this.waiting.set(personId, resolve));
  }

  private receive(request: http.IncomingMessage, response: http.ServerResponse) {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      this.received += 1;
      response.writeHead(204).end();
      const { person_id: personId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        person_id: number;
      };
      const resolve = this.waiting.get(personId);
      this.waiting.delete(personId);
      resolve?.(at);
    });
  }

  close() {
    this.server.closeAllConnections();
    this.server.close();
  }
}

async function patch(url: string, token: string, id: number, name: string): Promise<void> {
  const response = await fetch(`${url}/people/${id}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ 'person[first_name]': name }),
  });
  if (response.status !== 200) throw new Error(`PATCH answered ${response.status}`);
  await response.arrayBuffer();
}

/** From the moment a PATCH is sent to the moment its change reaches the receiver, in ms. */
async function latencies(
  urls: string[],
  token: string,
  ids: number[],
  receiver: Receiver,
): Promise<number[]> {
  const measured: Promise<number>[] = [];
  for (let i = 0; i < LATENCY_CHANGES; i++) {
    const id = ids[i % ids.length];
    const sent = performance.now();
    const arrived = receiver.arrival(id);
    await patch(urls[i % urls.length], token, id, `Lat${i}`);
    measured.push(
      Promise.race([
        arrived.then((at) => at - sent),
        new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 15_000)),
      ]),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000 / LATENCY_RATE_PER_S));
  }
  return Promise.all(measured);
}

function describe(label: string, values: number[]): string {
  const lost = values.filter((v) => !Number.isFinite(v)).length;
  return `${label}: p50 ${percentile(values, 50).toFixed(0)} ms, p99 ${percentile(values, 99).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms over ${values.length} changes${lost ? `, ${lost} not delivered within 15 s` : ''}`;
}

async function patchLoad(url: string, token: string, ids: number[], pid: number) {
  let n = 0;
  return runLoad(
    url,
    () => {
      const id = ids[n % ids.length];
      n += 1;
      return {
        method: 'PATCH',
        path: `/people/${id}`,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ 'person[first_name]': `Load${n % 97}` }),
      };
    },
    {
      connections: LOAD_CONNECTIONS,
      seconds: LOAD_SECONDS,
      headers: { Authorization: `Bearer ${token}` },
      serverPid: pid,
    },
  );
}

export async function webhookBench(): Promise<void> {
  const database = await BenchDatabase.prepare(process.env);
  log(`PostgreSQL: ${database.description}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    BCRYPT_COST: '4',
    NODE_ENV: 'production',
  };
  delete env.REDIS_URL;
  delete env.DATA_DIR;
  const cli = new ServiceCli(env);
  const servers: ServerProcess[] = [];
  const receiver = new Receiver();
  const stop = async () => {
    for (const server of servers.splice(0)) await server.stop();
  };
  try {
    await cli.migrate();
    const file = join(tmpdir(), `bench-webhooks-${process.pid}.json`);
    const people = Array.from({ length: PEOPLE }, (_, i) => ({
      first_name: `Hook${i}`,
      last_name: `Bench${i}`,
    }));
    await writeFile(file, JSON.stringify(people));
    await cli.import(file);
    await cli.createAccount({
      username: 'bench',
      password: 'bench-password-hooks',
      permissions: ['read', 'write'],
    });
    const a = await ServerProcess.start('service A', paths.serviceMain, env, '/readyz');
    servers.push(a);
    const keyResponse = await fetch(`${a.url}/keys`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from('bench:bench-password-hooks').toString('base64')}` },
    });
    const { token } = (await keyResponse.json()) as { token: string };
    const ids = await walkIds(a.url, token);
    const receiverUrl = await receiver.start();
    const webhooks = (args: string[]) => runNode(paths.cliMain, ['webhooks', ...args], env);

    // Throughput first, without the latency phase's deliveries in the way: none, then 3, twice.
    const rates: { none: number[]; three: number[] } = { none: [], three: [] };
    const delivered: number[] = [];
    log('warm-up…');
    await patchLoad(a.url, token, ids, a.pid);
    const subscriptions: string[] = [];
    for (const round of ['none', 'three', 'three', 'none'] as const) {
      if (round === 'three' && subscriptions.length === 0) {
        for (const path of ['/a', '/b', '/c']) {
          const { stdout } = await webhooks(['add', `${receiverUrl}${path}`]);
          subscriptions.push(/^id: (\d+)$/m.exec(stdout)?.[1] ?? '');
        }
      }
      if (round === 'none' && subscriptions.length > 0) {
        // Let the backlog drain, then remove them.
        const before = receiver.received;
        await new Promise((resolve) => setTimeout(resolve, 3000));
        log(
          `deliveries received so far ${receiver.received} (${receiver.received - before} in the last 3 s)`,
        );
        for (const id of subscriptions.splice(0)) await webhooks(['remove', id]);
      }
      log(`PATCH load, ${round === 'none' ? 'no subscriptions' : '3 subscriptions'}…`);
      const receivedBefore = receiver.received;
      const loadStarted = new Date();
      const figures = await patchLoad(a.url, token, ids, a.pid);
      if (round === 'three') {
        // What the PATCH rate costs is only half the story: the deliveries must keep up too.
        const perSecond = (receiver.received - receivedBefore) / LOAD_SECONDS;
        delivered.push(perSecond);
        // How long a send took (the POST to its answer), as the service recorded its attempts.
        const [sends] = await database.query<{ p50: number | null }>(
          'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50 FROM webhook_attempts WHERE at >= $1',
          [loadStarted],
        );
        log(
          `  ${perSecond.toFixed(0)} deliveries/s received during the load; a send took ${Number(sends.p50).toFixed(0)} ms at p50`,
        );
      }
      if (figures.non2xx > 0 || figures.errors > 0)
        log(`  INVALID: ${figures.non2xx} non-2xx, ${figures.errors} errors`);
      rates[round === 'none' ? 'none' : 'three'].push(figures.requestsPerSecond);
      log(`  ${figures.requestsPerSecond.toFixed(0)} PATCH/s, p99 ${figures.p99Ms} ms`);
    }

    const { stdout } = await webhooks(['add', `${receiverUrl}/latency`]);
    const latencyId = /^id: (\d+)$/m.exec(stdout)?.[1] ?? '';
    log('latency, one instance…');
    const one = await latencies([a.url], token, ids, receiver);
    const b = await ServerProcess.start('service B', paths.serviceMain, env, '/readyz');
    servers.push(b);
    log('latency, two instances (PATCHes alternate between them)…');
    const two = await latencies([a.url, b.url], token, ids.slice(LATENCY_CHANGES), receiver);
    await webhooks(['remove', latencyId]);

    const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
    const ratio = mean(rates.three) / mean(rates.none);
    process.stdout.write(
      [
        '',
        `Webhooks on PostgreSQL (${PEOPLE} people; a receiver on loopback answering 204)`,
        `${describe('delivery latency, 1 instance ', one)}   target p99 <= 1000 ms`,
        `${describe('delivery latency, 2 instances', two)}   target p99 <= 1000 ms`,
        `PATCH/s with no subscriptions: ${rates.none.map((r) => r.toFixed(0)).join(', ')}; with 3: ${rates.three.map((r) => r.toFixed(0)).join(', ')} (${LOAD_CONNECTIONS} connections, ${LOAD_SECONDS} s each)`,
        `PATCH throughput with 3 subscriptions / none: ${(ratio * 100).toFixed(0)} %   target >= 80 %`,
        `deliveries received during the loads with 3: ${delivered.map((r) => r.toFixed(0)).join(', ')} a second (3 × PATCH/s asked)`,
        '',
      ].join('\n'),
    );
  } finally {
    receiver.close();
    await stop();
    log(await database.cleanUp());
  }
}
