import { Router } from 'express';
import type { Container } from 'inversify';
import { APP } from '../container';
import type { ReadinessCheck } from '../infrastructure/persistence/readiness-check';
import { VERSION } from '../version';
import { methodNotAllowed } from './method-not-allowed';

/**
 * Probes for orchestrators: liveness never touches the database and names the release; readiness
 * runs the queries requests make (see readinessProbe), so that whatever breaks them takes the
 * instance out.
 */
export function healthRouter(container: Container): Router {
  const readiness = container.get<ReadinessCheck>(APP.Readiness);
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', version: VERSION });
  });
  router.all('/healthz', methodNotAllowed('GET'));
  router.get('/readyz', async (_req, res) => {
    if (await readiness.ready()) {
      res.json({ status: 'ok' });
      return;
    }
    // Answered here, not thrown: the check has told the operator once (ReadinessCheck), and the
    // error handler would add a warning with a stack to every probe of the outage.
    res.locals.expectedFailure = true;
    res.status(503).json({ errors: ['the database is unavailable'] });
  });
  router.all('/readyz', methodNotAllowed('GET'));
  return router;
}
