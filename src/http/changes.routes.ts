import express, { type Request, type Response } from 'express';
import type { Container } from 'inversify';
import { ListChanges } from '../application/changes/list-changes';
import { InvalidInput } from '../domain/errors';
import type { BearerGuard } from './authentication';
import { CHANGE_PAGE_OPENING, changePageClosing } from './change.mapper';
import { streamJsonArray } from './json-array-stream';
import { messagesFor } from './error-messages';
import { methodNotAllowed } from './method-not-allowed';
import { singleValues } from './search-request';
import type { StreamLimits } from './stream-limits';
import { quoteName } from './validation';

const PARAMETERS = ['after', 'limit'];

/** `limit` as given: a number only when it is written as one; the use case checks its range. */
function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  return /^[0-9]{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
}

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
    const output = await listChanges.execute({ after: query.after, limit: limitOf(query.limit) });
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
