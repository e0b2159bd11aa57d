import express, { type Request, type Response } from 'express';
import type { Container } from 'inversify';
import { IssueKey } from '../application/keys/issue-key';
import { ListKeys } from '../application/keys/list-keys';
import { RevokeKey } from '../application/keys/revoke-key';
import type { TokenService } from '../application/ports/token-service';
import { TYPES } from '../application/ports/tokens';
import type { ApiKey } from '../domain/api-key';
import { mapApiKey } from './api-key.mapper';
import { basicChallenge, basicCredentials, bearerAuth, principalOf } from './authentication';
import { acceptBody } from './body-parsing';
import { parseIssueKeyBody } from './keys-issue-body';
import { idParam } from './ids';
import { methodNotAllowed } from './method-not-allowed';

function clientAddress(req: Request): string {
  // req.ip honours the app's `trust proxy` setting; the socket address is the fallback for a
  // request whose connection is already gone.
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** POST /keys (Basic), GET /keys, DELETE /keys and DELETE /keys/:id (Bearer). */
export function keysRouter(container: Container): express.Router {
  const router = express.Router();
  const bearer = bearerAuth(container);
  const masked = (key: ApiKey) =>
    mapApiKey(key, container.get<TokenService>(TYPES.TokenService).mask(key.prefix));

  router.post(
    '/keys',
    acceptBody('json'),
    async (req: Request, res: Response) => {
      const { username, password } = basicCredentials(req);
      const body = await parseIssueKeyBody(req.body);
      const { key, token } = await container.get(IssueKey).execute({
        username,
        password,
        clientAddress: clientAddress(req),
        name: body.name ?? undefined,
        permissions: body.permissions ?? undefined,
        expiresInDays: body.expires_in_days ?? undefined,
      });
      res.status(201).json(mapApiKey(key, token));
    },
    basicChallenge,
  );

  // Managing one's own keys needs a valid key and no permission.
  router.get('/keys', bearer(), async (_req: Request, res: Response) => {
    const keys = await container.get(ListKeys).execute({ principal: principalOf(res) });
    res.json(keys.map(masked));
  });

  router.delete('/keys', bearer(), async (_req: Request, res: Response) => {
    const key = await container.get(RevokeKey).execute({ principal: principalOf(res) });
    res.json(masked(key));
  });

  router.delete('/keys/:id', bearer(), async (req: Request, res: Response) => {
    const keyId = idParam(req);
    const key = await container.get(RevokeKey).execute({ principal: principalOf(res), keyId });
    res.json(masked(key));
  });

  router.all('/keys', methodNotAllowed('GET', 'POST', 'DELETE'));
  router.all('/keys/:id', methodNotAllowed('DELETE'));
  return router;
}
