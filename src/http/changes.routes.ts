import express, { type Request, type Response } from 'express';
import type { Container } from 'inversify';
import { DEFAULT_CHANGES_LIMIT, ListChanges } from '../application/changes/list-changes';
import { InvalidInput } from '../domain/errors';
import type { BearerGuard } from './authentication';
import { CHANGE_PAGE_OPENING, changePageClosing } from './change.mapper';
import { streamJsonArray } from './json-array-stream';
import { isHeavyPage, takeHeavyTurn } from './key-turns';
import { messagesFor } from './error-messages';
import { limitParam } from './ids';
import { methodNotAllowed } from './method-not-allowed';
import { singleValues } from './search-request';
import type { StreamLimits } from './stream-limits';
import { quoteName } from './validation';

const PARAMETERS = ['after', 'limit'];

const joinTexts = (texts: string[]) => texts.join(',');

/** GET /changes (SPEC §7). */
export function changesRouter(
  container: Container,
  bearer: BearerGuard,
  streams: StreamLimits,
): express.Router {
  const router = express.Router();
  const listChanges = container.get(ListChanges);

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
    const limit = limitParam(query.limit);
    if (isHeavyPage(limit ?? DEFAULT_CHANGES_LIMIT) && !(await takeHeavyTurn(res))) return;
    const output = await listChanges.execute({ after: query.after, limit });
    // Rendered by the store and sent on as it reads them, while it renders the rest; a short page
    // goes out in one write with its length.
    await streamJsonArray(res, output.changes, joinTexts, streams.stallTimeoutMs, {
      opening: CHANGE_PAGE_OPENING,
      closing: () => changePageClosing(output.end()),
    });
  });
  router.all('/changes', methodNotAllowed('GET'));
  return router;
}
