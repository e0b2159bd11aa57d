import type { Request, Response } from 'express';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { connectionPool } from '../infrastructure/persistence/connection-pool';
import type { Database } from '../infrastructure/persistence/database';
import { VERSION } from '../version';

let processRegistry: Registry | undefined;

/**
 * prom-client's gauges named like counters: `promtool check metrics` refuses a gauge whose name
 * ends in _total. Each is the sum of its by-type gauge (nodejs_active_handles{type}...), which stays.
 */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * CPU, memory, event loop and GC belong to the process, not to an app: collected once, into a
 * registry of their own that every app's /metrics merges in. (Collecting them per app would start
 * a new event-loop monitor for each app a test builds.) So does the build: which release, on which
 * Node, answers (build_info, 1, the usual Prometheus idiom for labels that describe a target).
 */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    for (const name of MISNAMED_DEFAULTS) processRegistry.removeSingleMetric(name);
    new Gauge({
      name: 'build_info',
      help: 'Always 1; its labels name the release of the service (package.json) and the Node.js version.',
      labelNames: ['version', 'nodejs'] as const,
      registers: [processRegistry],
    }).set({ version: VERSION, nodejs: process.version }, 1);
  }
  return processRegistry;
}

/**
 * The Express route pattern (`/people/:id`), never the raw path: one series per route, however
 * many ids clients ask for. Requests no route matched (404s) share one label. Read when the answer
 * ends, when Express has already reset req.baseUrl: this holds because every router is mounted at
 * the root (a router mounted under a prefix would lose it here).
 */
function routeLabel(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  return route?.path === undefined ? 'unmatched' : `${req.baseUrl}${String(route.path)}`;
}

/** One app's metrics: its own registry, so that several apps in one process do not clash. */
export class HttpMetrics {
  private readonly appRegistry = new Registry();
  readonly registry: Registry;

  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.appRegistry],
  });

  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.appRegistry],
  });

  /** `shared`: registries of the process's other metrics (OperatorMetrics), served beside these. */
  constructor(database: Database, shared: Registry[] = []) {
    const labels = { database: database.kind };
    const registers = [this.appRegistry];
    new Gauge({
      name: 'db_pool_connections',
      help: 'Open database connections, by state: active (running a query or transaction) or idle.',
      labelNames: ['database', 'state'] as const,
      registers,
      collect() {
        const pool = connectionPool(database.dataSource);
        this.set({ ...labels, state: 'active' }, pool ? pool.totalCount - pool.idleCount : 0);
        this.set({ ...labels, state: 'idle' }, pool?.idleCount ?? 0);
      },
    });
    new Gauge({
      name: 'db_pool_waiting_requests',
      help: 'Queries waiting for a free database connection.',
      labelNames: ['database'] as const,
      registers,
      collect() {
        this.set(labels, connectionPool(database.dataSource)?.waitingCount ?? 0);
      },
    });
    new Gauge({
      name: 'db_pool_max_connections',
      help: 'Size limit of the database connection pool (1 for the embedded database).',
      labelNames: ['database'] as const,
      registers,
      collect() {
        this.set(labels, connectionPool(database.dataSource)?.options?.max ?? 0);
      },
    });
    this.registry = Registry.merge([processMetrics(), this.appRegistry, ...shared]);
  }

  /**
   * Counts an answer once it has ended (or its client went away), with how long it took. Called
   * by the request edge (see app.ts) for every request, errors and 404s included.
   */
  record(req: Request, res: Response, seconds: number): void {
    const labels = { method: req.method, route: routeLabel(req), status: String(res.statusCode) };
    this.duration.observe(labels, seconds);
    this.requests.inc(labels);
  }
}
