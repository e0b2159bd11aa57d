import express, { type Request, type Response } from 'express';
import type { Container } from 'inversify';
import { ListKeys } from '../application/keys/list-keys';
import { RevokeKey } from '../application/keys/revoke-key';
import type { TokenService } from '../application/ports/token-service';
import { TYPES } from '../application/ports/tokens';
import type { ApiKey } from '../domain/api-key';
import { mapApiKey } from './api-key.mapper';
import { type BearerGuard, principalOf } from './authentication';
import { idParam } from './ids';
import { methodNotAllowed } from './method-not-allowed';

/** GET /keys, DELETE /keys and DELETE /keys/:id (Bearer); POST /keys is keysIssueRouter's. */
export function keysRouter(container: Container, bearer: BearerGuard): express.Router {
  const router = express.Router();
  const tokens = container.get<TokenService>(TYPES.TokenService);
  const listKeys = container.get(ListKeys);
  const revokeKey = container.get(RevokeKey);
  const masked = (key: ApiKey) => mapApiKey(key, tokens.mask(key.prefix));

  // Managing one's own keys needs a valid key and no permission.
  router.get('/keys', bearer(), async (_req: Request, res: Response) => {
    const keys = await listKeys.execute({ principal: principalOf(res) });
    res.json(keys.map(masked));
  });

  router.delete('/keys', bearer(), async (_req: Request, res: Response) => {
    const key = await revokeKey.execute({ principal: principalOf(res) });
    res.json(masked(key));
  });

  router.delete('/keys/:id', bearer(), async (req: Request, res: Response) => {
    const keyId = idParam(req);
    const key = await revokeKey.execute({ principal: principalOf(res), keyId });
    res.json(masked(key));
  });

  router.all('/keys', methodNotAllowed('GET', 'POST', 'DELETE'));
  router.all('/keys/:id', methodNotAllowed('DELETE'));
  return router;
}
