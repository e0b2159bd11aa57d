import express, { type Request, type Response } from 'express';
import type { Container } from 'inversify';
import { IssueKey } from '../application/keys/issue-key';
import { mapApiKey } from './api-key.mapper';
import { accountOf, basicAuth, basicChallenge } from './authentication';
import { acceptBody } from './body-parsing';
import { parseIssueKeyBody } from './keys-issue-body';

/**
 * POST /keys (Basic). Mounted before the app's own body parsers, because here the credentials
 * come first and the body is read only after them: a request without valid credentials learns
 * nothing about its body (SPEC §2, order of checks), not even that it is malformed. Other methods
 * on /keys fall through to keysRouter.
 */
export function keysIssueRouter(container: Container): express.Router {
  const router = express.Router();
  const issueKey = container.get(IssueKey);
  router.post(
    '/keys',
    basicAuth(container),
    acceptBody('json'),
    async (req: Request, res: Response) => {
      const body = await parseIssueKeyBody(req.body);
      const { key, token } = await issueKey.execute({
        accountId: accountOf(res).personId,
        name: body.name ?? null,
        permissions: body.permissions ?? null,
        expiresInDays: body.expires_in_days ?? null,
      });
      res.status(201).json(mapApiKey(key, token));
    },
    basicChallenge,
  );
  return router;
}
