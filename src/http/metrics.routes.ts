import express, { type Request, type Response } from 'express';
import type { HttpMetrics } from './metrics';
import { methodNotAllowed } from './method-not-allowed';

/** GET /metrics in the Prometheus text format. */
export function metricsRouter(metrics: HttpMetrics): express.Router {
  const router = express.Router();
  router.get('/metrics', async (_req: Request, res: Response) => {
    const body = await metrics.registry.metrics();
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(body);
  });
  router.all('/metrics', methodNotAllowed('GET'));
  return router;
}
