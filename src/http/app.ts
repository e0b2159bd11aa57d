import express, { type Request, type RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { APP } from '../container';
import type { Config } from '../config';
import type { OperatorMetrics } from '../infrastructure/observability/operator-metrics';
import type { Database } from '../infrastructure/persistence/database';
import type { RedisConnection } from '../infrastructure/rate-limit/redis-connection';
import type { RequestActivity } from '../request-activity';
import { bearerAuth } from './authentication';
import { refuseOversizedBody } from './body-parsing';
import { changesRouter } from './changes.routes';
import { deskRouter } from './desk.routes';
import { docsRouter } from './docs.routes';
import { errorHandler } from './error-handler';
import { forwardedForNotice } from './forwarded-for-notice';
import { healthRouter } from './health.routes';
import { HttpError } from './http-error';
import { importsRouter } from './imports.routes';
import { keysIssueRouter } from './keys-issue.routes';
import { keysRouter } from './keys.routes';
import { KeyTurns } from './key-turns';
import { HttpMetrics } from './metrics';
import { metricsRouter } from './metrics.routes';
import { openApiRouter } from './openapi/openapi.routes';
import { peopleRouter } from './people.routes';
import { keyRateLimit } from './rate-limit';
import { assignRequestId } from './request-id';
import { type RequestLog, requestLogger } from './request-logger';
import { StreamLimits } from './stream-limits';

/**
 * Fair sharing (SPEC §4; docs/decisions.md, "Fair sharing between keys"): while other keys are
 * about, a key's requests are served two at a time and up to 200 more wait their turn, so that
 * another key's lookup waits behind at most two of them; a key alone, 64 at a time.
 */
const TURNS_PER_KEY = 2;
const TURNS_ALONE = 64;
const WAITING_PER_KEY = 200;

/**
 * helmet's options for an answer over plain HTTP. Volunteers reach the service by a host name over
 * HTTP (a Raspberry Pi, a NAS, a Docker host): there `upgrade-insecure-requests` made the browser
 * fetch the page's own scripts over HTTPS from a server that speaks none, a blank /docs, and HSTS
 * would pin the host name to HTTPS for a year. Both are sent only for requests that came over
 * HTTPS (req.secure, which with TRUST_PROXY honours X-Forwarded-Proto). Every other header is the
 * same over both.
 */
const PLAIN_HTTP: HelmetOptions = {
  strictTransportSecurity: false,
  contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
};

/**
 * What every request goes through first, in one step rather than a middleware each (each
 * Express layer costs a lookup and a closure on every request): the activity streams give way to,
 * its metrics and log line when the answer ends, its id and the headers of every answer, and the
 * body-size limit.
 */
function requestEdge(
  metrics: HttpMetrics,
  log: RequestLog,
  activity: RequestActivity,
  forwarded: ((req: Request) => void) | null,
): RequestHandler {
  const overTls = helmet();
  const plain = helmet(PLAIN_HTTP);
  return (req, res, next) => {
    const started = performance.now();
    forwarded?.(req);
    const ended = activity.arrived();
    // 'close' comes after the answer is sent, and also when the client goes away before that.
    res.once('close', () => {
      ended();
      const ms = performance.now() - started;
      metrics.record(req, res, ms / 1000);
      log(req, res, Math.round(ms));
    });
    assignRequestId(req, res);
    // People data is personal: no shared cache keeps it. Routes that support revalidation say so.
    res.setHeader('Cache-Control', 'no-store');
    // Bodies are read by the routes that take one, after authentication; only their size comes first.
    (req.secure ? overTls : plain)(req, res, (error?: unknown) =>
      error ? next(error) : refuseOversizedBody(req, res, next),
    );
  };
}

export interface AppOptions {
  /** How long a stream waits for a client that does not read before cutting it off (30 s). */
  streamStallTimeoutMs?: number;
  /** How long, on average, a stream past its limits waits for a place before its 429 (1 s). */
  streamPlaceWaitMs?: number;
}

/**
 * The Express app over a container built by createContainer; no listening, so tests run it
 * in-process. What its routes share per key and per process (the rate limit, the turns, the
 * streams' places) is built here, once per app.
 */
export function createApp(container: Container, options: AppOptions = {}): express.Express {
  const config = container.get<Config>(APP.Config);
  const logger = container.get<Logger>(APP.Logger);
  const activity = container.get<RequestActivity>(APP.RequestActivity);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  // Answers are built per request (and ETags by the people routes), never Express's weak body hashes.
  app.set('etag', false);

  // Each app counts its own requests: two apps in one process (tests) never mix their counts.
  const metrics = new HttpMetrics(container.get<Database>(APP.Database), [
    container.get<OperatorMetrics>(APP.OperatorMetrics).registry,
  ]);
  const log = requestLogger(app, logger);
  // Only without TRUST_PROXY: with it, X-Forwarded-For is expected.
  const forwarded = config.trustProxy === false ? forwardedForNotice(logger) : null;
  app.use(requestEdge(metrics, log, activity, forwarded));

  const bearer = bearerAuth(container, {
    rateLimit: keyRateLimit({
      limit: config.rateLimitPerMinute,
      redis: container.get<RedisConnection | null>(APP.Redis),
      logger,
    }),
    turns: new KeyTurns(
      { perKey: TURNS_PER_KEY, alone: TURNS_ALONE, waitingPerKey: WAITING_PER_KEY },
      activity,
    ),
  });
  const streams = new StreamLimits(
    {
      perKey: config.streamsPerKey,
      perInstance: config.streamsPerInstance,
      stallTimeoutMs: options.streamStallTimeoutMs,
      placeWaitMs: options.streamPlaceWaitMs,
    },
    activity,
  );

  // The people routes first: the chat bot's lookups are most of the traffic, and every router
  // mounted before them is one more a lookup walks through. No two routers share a path.
  app.use(peopleRouter(container, bearer, streams));
  // POST /keys reads its body only after the credentials: see keysIssueRouter.
  app.use(keysIssueRouter(container));
  app.use(healthRouter(container));
  app.use(metricsRouter(metrics));
  app.use(openApiRouter());
  app.use(docsRouter());
  app.use(deskRouter());
  app.use(changesRouter(container, bearer, streams));
  app.use(keysRouter(container, bearer));
  app.use(importsRouter(container, bearer));

  app.use((req, _res, next) => {
    next(new HttpError(404, `no such endpoint: ${req.method} ${req.path}`));
  });
  app.use(errorHandler);
  return app;
}
