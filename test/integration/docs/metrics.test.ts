import { spawnSync } from 'node:child_process';
import request from 'supertest';
import { createApp } from '../../../src/http/app';
import { VERSION } from '../../../src/version';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { outsideProgram } from '../../support/outside-program';

/** The value of one series in Prometheus text, or undefined when it is absent. */
function sample(metrics: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = metrics
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}{`) &&
        wanted.every((pair) => l.slice(l.indexOf('{'), l.indexOf('}')).includes(pair)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Prometheus's own checker: CI installs it (Debian's prometheus); elsewhere, skipped without it. */
const promtool = outsideProgram('promtool', 'apt-get install prometheus');

describe.each(testDatabases)('GET /metrics on $name', (target) => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp(target);
    token = await t.tokenWith(['read']);
  });
  afterAll(() => t.close());

  const scrape = async (app = t.app) => {
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  it('counts requests by route pattern and status, never by raw path', async () => {
    const app = createApp(t.container);
    for (const id of [2_000_001, 2_000_002, 2_000_003]) {
      await request(app).get(`/people/${id}`).set('Authorization', `Bearer ${token}`).expect(404);
    }
    await request(app).get('/people/1').expect(401);
    await request(app).get('/no/such/thing').expect(404);
    await request(app).put('/healthz').expect(405);

    const metrics = await scrape(app);
    const requests = (route: string, status: string, method = 'GET') =>
      sample(metrics, 'http_requests_total', { method, route, status });
    expect(requests('/people/:id', '404')).toBe(3);
    expect(requests('/people/:id', '401')).toBe(1);
    expect(requests('unmatched', '404')).toBe(1);
    expect(requests('/healthz', '405', 'PUT')).toBe(1);
    expect(metrics).not.toMatch(/route="\/people\/2000001"/);
    expect(metrics).not.toMatch(/route="\/no\/such\/thing"/);
  });

  it('times requests in a histogram with the same labels', async () => {
    const app = createApp(t.container);
    await request(app).get('/healthz').expect(200);
    await request(app).get('/healthz').expect(200);
    const metrics = await scrape(app);
    const labels = { method: 'GET', route: '/healthz', status: '200' };
    expect(sample(metrics, 'http_request_duration_seconds_count', labels)).toBe(2);
    expect(sample(metrics, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(2);
    expect(sample(metrics, 'http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
  });

  it('reports the database pool and the process', async () => {
    await request(t.app).get('/readyz').expect(200);
    const metrics = await scrape();
    const database = { database: t.database.kind };
    const idle = sample(metrics, 'db_pool_connections', { ...database, state: 'idle' });
    const active = sample(metrics, 'db_pool_connections', { ...database, state: 'active' });
    const max = sample(metrics, 'db_pool_max_connections', database);
    // The readiness query opened at least one connection, which is back in the pool now.
    expect(idle).toBeGreaterThanOrEqual(1);
    expect(active).toBeGreaterThanOrEqual(0);
    expect(max).toBe(t.database.kind === 'pglite' ? 1 : 10);
    expect(idle! + active!).toBeLessThanOrEqual(max!);
    expect(sample(metrics, 'db_pool_waiting_requests', database)).toBe(0);
    expect(metrics).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('names the build it comes from: build_info{version, nodejs} 1', async () => {
    const metrics = await scrape();
    expect(sample(metrics, 'build_info', { version: VERSION, nodejs: process.version })).toBe(1);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });

  promtool.it('passes `promtool check metrics`, with every series of a busy answer present', async () => {
    // Every kind of series present: requests and their latencies, a 404 and a 401.
    await request(t.app).get('/healthz').expect(200);
    await request(t.app).get('/people/1').expect(401);
    await request(t.app).get('/people/1').set('Authorization', `Bearer ${token}`);
    const metrics = await scrape();
    const check = spawnSync(promtool.path(), ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
    expect(check.error).toBeUndefined();
    expect({ status: check.status, problems: `${check.stdout}${check.stderr}` }).toEqual({
      status: 0,
      problems: '',
    });
  });

  it("keeps each app's counts apart, so that two apps in one process do not clash", async () => {
    const first = createApp(t.container);
    const second = createApp(t.container);
    await request(first).get('/healthz').expect(200);
    const fromSecond = await scrape(second);
    expect(sample(fromSecond, 'http_requests_total', { route: '/healthz', status: '200' })).toBeUndefined();
    const fromFirst = await scrape(first);
    expect(sample(fromFirst, 'http_requests_total', { route: '/healthz', status: '200' })).toBe(1);
  });
});
