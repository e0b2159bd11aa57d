import express, { type Request, type Response } from 'express';
import type { Container } from 'inversify';
import { ListChanges } from '../application/changes/list-changes';
import { InvalidInput } from '../domain/errors';
import { bearerAuth } from './authentication';
import { mapChangePage } from './change.mapper';
import { messagesFor } from './error-messages';
import { methodNotAllowed } from './method-not-allowed';
import { singleValues } from './search-request';
import { quoteName } from './validation';

const PARAMETERS = ['after', 'limit'];

/** `limit` as given: a number only when it is written as one; the use case checks its range. */
function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  return /^[0-9]{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
}

/** GET /changes (SPEC §7). */
export function changesRouter(container: Container): express.Router {
  const router = express.Router();
  const bearer = bearerAuth(container);

  router.get('/changes', bearer('read'), async (req: Request, res: Response) => {
    const query = singleValues(req);
    const unknown = Object.keys(query).filter((key) => !PARAMETERS.includes(key));
    if (unknown.length > 0) {
      throw new InvalidInput(
        messagesFor(
          unknown,
          (key) => `unknown query parameter ${quoteName(key)}; the parameters are after, limit`,
        ),
      );
    }
    const output = await container
      .get(ListChanges)
      .execute({ after: query.after, limit: limitOf(query.limit) });
    // Rendered by the store: one text, sent in one write with its length.
    res.type('application/json; charset=utf-8').send(mapChangePage(output));
  });
  router.all('/changes', methodNotAllowed('GET'));
  return router;
}
