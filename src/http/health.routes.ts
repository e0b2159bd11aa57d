import { Router } from 'express';
import type { Container } from 'inversify';
import { APP } from '../container';
import type { ReadinessProbe } from '../infrastructure/persistence/readiness';
import { HttpError } from './http-error';
import { methodNotAllowed } from './method-not-allowed';

const READINESS_TIMEOUT_MS = 2000;

async function serviceQueriesAnswer(probe: ReadinessProbe): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
  });
  const query = probe().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Probes for orchestrators: liveness never touches the database; readiness runs the queries
 * requests make (see readinessProbe), so that whatever breaks them takes the instance out.
 */
export function healthRouter(container: Container): Router {
  const probe = container.get<ReadinessProbe>(APP.ReadinessProbe);
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.all('/healthz', methodNotAllowed('GET'));
  router.get('/readyz', async (_req, res) => {
    if (!(await serviceQueriesAnswer(probe))) throw new HttpError(503, 'the database is unavailable');
    res.json({ status: 'ok' });
  });
  router.all('/readyz', methodNotAllowed('GET'));
  return router;
}
