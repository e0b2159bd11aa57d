import express, { type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { APP } from '../container';
import type { Config } from '../config';
import type { Database } from '../infrastructure/persistence/database';
import { refuseOversizedBody } from './body-parsing';
import { changesRouter } from './changes.routes';
import { docsRouter } from './docs.routes';
import { errorHandler } from './error-handler';
import { healthRouter } from './health.routes';
import { HttpError } from './http-error';
import { keysIssueRouter } from './keys-issue.routes';
import { keysRouter } from './keys.routes';
import { HttpMetrics } from './metrics';
import { metricsRouter } from './metrics.routes';
import { openApiRouter } from './openapi/openapi.routes';
import { peopleRouter } from './people.routes';
import { requestId } from './request-id';
import { requestLogger } from './request-logger';

/**
 * helmet's headers, worked out once: with the default options none depends on the request, so
 * each answer gets them in one loop instead of helmet's chain of a dozen middlewares.
 */
function securityHeaders(): RequestHandler {
  const headers: [string, string][] = [];
  const probe = {
    setHeader: (name: string, value: string | number) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  let finished = false;
  helmet()({} as Request, probe as unknown as Response, () => {
    finished = true;
  });
  // helmet goes through its chain synchronously; if a version ever did not, it is used as it is.
  if (!finished) return helmet();
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** The Express app over a container built by createContainer; no listening, so tests run it in-process. */
export function createApp(container: Container): express.Express {
  const config = container.get<Config>(APP.Config);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  // Answers are built per request (and ETags by the people routes), never Express's weak body hashes.
  app.set('etag', false);

  // Each app counts its own requests: two apps in one process (tests) never mix their counts.
  const metrics = new HttpMetrics(container.get<Database>(APP.Database));
  app.use(metrics.middleware);
  app.use(requestId);
  app.use(requestLogger(app, container.get<Logger>(APP.Logger)));
  app.use(securityHeaders());
  app.use((_req, res, next) => {
    // People data is personal: no shared cache keeps it. Routes that support revalidation say so.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // Bodies are read by the routes that take one, after authentication; only their size comes first.
  app.use(refuseOversizedBody);
  // POST /keys reads its body only after the credentials: see keysIssueRouter.
  app.use(keysIssueRouter(container));

  app.use(healthRouter(container));
  app.use(metricsRouter(metrics));
  app.use(openApiRouter());
  app.use(docsRouter());
  app.use(peopleRouter(container));
  app.use(changesRouter(container));
  app.use(keysRouter(container));

  app.use((req, _res, next) => {
    next(new HttpError(404, `no such endpoint: ${req.method} ${req.path}`));
  });
  app.use(errorHandler);
  return app;
}
