import express, { type Request, type Response } from 'express';
import { methodNotAllowed } from '../method-not-allowed';
import { buildOpenApiDocument } from './openapi-document';

/** GET /openapi.json: the document is built once, when the app is. */
export function openApiRouter(): express.Router {
  const document = buildOpenApiDocument();
  const router = express.Router();
  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.json(document);
  });
  router.all('/openapi.json', methodNotAllowed('GET'));
  return router;
}
