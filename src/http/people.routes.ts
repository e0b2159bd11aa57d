import express, { type Request, type Response } from 'express';
import type { Container } from 'inversify';
import { TakeChangesCursor } from '../application/changes/take-changes-cursor';
import { ErasePerson } from '../application/people/erase-people';
import { ExportPersonData } from '../application/people/export-person-data';
import { GetPerson } from '../application/people/get-person';
import { personDataView } from '../application/people/person-data-view';
import { SearchPeople } from '../application/people/search-people';
import { UpdatePerson } from '../application/people/update-person';
import type { TokenService } from '../application/ports/token-service';
import { TYPES } from '../application/ports/tokens';
import type { Grace } from '../domain/grace';
import { type BearerGuard, principalOf } from './authentication';
import { acceptBody } from './body-parsing';
import { entityTag, noneMatch, versionsMatching } from './entity-tag';
import { streamJsonArray } from './json-array-stream';
import type { StreamLimits } from './stream-limits';
import { idParam } from './ids';
import { giveBackTurn, isHeavyPage, takeHeavyTurn, takeTurn } from './key-turns';
import { methodNotAllowed } from './method-not-allowed';
import { personRecordHandlers } from './person-record.routes';
import { readSearchRequest, type SearchRequest } from './search-request';
import { sendPerson } from './send-person';
import { readPersonChanges } from './update-person-body';

/**
 * Always a GET /people with the filter in its query string, whichever form the search came in:
 * a link is followed without a body, and POST /people/search is no GET route.
 */
function nextPageLink(search: SearchRequest, nextAfter: number, limit: number): string {
  const params = new URLSearchParams(search.filterParams);
  params.set('limit', String(limit));
  params.set('after', String(nextAfter));
  return `</people?${params}>; rel="next"`;
}

/**
 * GET /people, POST /people/search, GET, PATCH and DELETE /people/:id, GET /people/:id/data, and
 * the secretary's edits of one record: POST /people, PUT /people/:id/record, POST
 * /people/:id/memberships (person-record.routes.ts).
 */
export function peopleRouter(
  container: Container,
  bearer: BearerGuard,
  streams: StreamLimits,
): express.Router {
  const router = express.Router();
  const searchPeople = container.get(SearchPeople);
  const takeChangesCursor = container.get(TakeChangesCursor);
  const getPerson = container.get(GetPerson);
  const updatePerson = container.get(UpdatePerson);
  const erasePerson = container.get(ErasePerson);
  const exportPersonData = container.get(ExportPersonData);
  const tokens = container.get<TokenService>(TYPES.TokenService);
  const record = personRecordHandlers(container);
  const grace = container.get<Grace>(TYPES.Grace);

  async function search(req: Request, res: Response): Promise<void> {
    const request = await readSearchRequest(req);
    const { filter, limit, after } = request;
    // A long stream's place among the streams (StreamLimits), taken before anything is read.
    const place: { leave: (() => void) | null } = { leave: null };
    try {
      const output = await searchPeople.execute({
        filter,
        limit,
        after,
        // Before the people are read: a change committed meanwhile is then in the feed after this
        // cursor (and maybe in the list too), never in neither.
        beforeRead: async ({ lookup, longStream }) => {
          // The key's turn (fair sharing), except for an unpaged search that is not a lookup: a
          // long stream, bounded by its own limits instead, whether it is let in or refused. Such a
          // request takes no turn, so another key's lookups are not held to a few at a time while
          // this key's careless clients ask for the full list again and again (SPEC §4; refused
          // hundreds of times a second in `npm run bench -- --only slow_streams`). A client that
          // left while it waited is answered nothing: what follows is read in vain, or, for a
          // stream, not at all. A HEAD is answered without a stream, so it takes no place.
          if (longStream && req.method !== 'HEAD') {
            place.leave = await streams.enter(principalOf(res).keyId, res);
            if (place.leave === null) return;
          }
          if (!longStream) await takeTurn(res);
          if (!lookup && isHeavyPage(limit)) await takeHeavyTurn(res);
          res.setHeader('Changes-Cursor', await takeChangesCursor.execute());
        },
      });
      if (output.kind !== 'stream') {
        if (output.kind === 'page' && output.nextAfter !== null && limit !== undefined) {
          res.setHeader('Link', nextPageLink(request, output.nextAfter, limit));
        }
        // Rendered by the store: a page (or an unpaged lookup's few people) is joined, not parsed
        // and serialised again, and goes out in one write with its length (res.send would parse
        // the Content-Type again). Encoded once, as a Buffer: a string would be measured, then
        // copied behind the headers and encoded again (a sixth of a page of 100's CPU,
        // docs/performance.md). For a HEAD, node sends the headers alone.
        const body = Buffer.from(`[${output.people.map((person) => person.json).join(',')}]`);
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.setHeader('Content-Length', body.length);
        res.end(body);
        return;
      }
      if (req.method === 'HEAD') {
        res.status(200).type('application/json; charset=utf-8').end();
        return;
      }
      // A long stream whose client left while it waited for its place: nothing to answer.
      if (!output.lookup && place.leave === null) return;
      // A lookup that matched more people than it reads at once goes on as a stream (never
      // counted among the long ones), which may last minutes: the key's other requests need not
      // wait for it.
      giveBackTurn(res);
      await streamJsonArray(res, output.people, (person) => person.json, streams.stallTimeoutMs);
    } finally {
      // The place, once the stream is over, failed, or never began (a failure before it).
      place.leave?.();
    }
  }

  // Each route: its guard (credentials, permission, rate limit) first, then its body, then the rest.
  // A search takes its key's turn once it knows whether it is a stream (see search).
  router.get('/people', bearer('read', { turnTakenByRoute: true }), acceptBody('json'), search);
  router.post('/people', bearer('manage'), acceptBody('json'), record.add);
  router.all('/people', methodNotAllowed('GET', 'POST'));
  router.post('/people/search', bearer('read', { turnTakenByRoute: true }), acceptBody('json'), search);
  router.all('/people/search', methodNotAllowed('POST'));

  router.get('/people/:id', bearer('read'), async (req: Request, res: Response) => {
    const id = idParam(req);
    const { person, today } = await getPerson.execute({ id });
    const tag = entityTag(person.version, today);
    if (noneMatch(req.get('If-None-Match'), tag)) {
      res.setHeader('ETag', tag);
      res.setHeader('Cache-Control', 'private, no-cache');
      res.status(304).end();
      return;
    }
    sendPerson(res, person, today, grace);
  });

  router.patch(
    '/people/:id',
    bearer('write'),
    acceptBody('json', 'form'),
    async (req: Request, res: Response) => {
      const id = idParam(req);
      const changes = await readPersonChanges(req.body);
      const versions = versionsMatching(req.get('If-Match'));
      const principal = principalOf(res);
      // If-Match may list several tags: the update goes ahead when any of them is current.
      const { person, today } = await updatePerson.execute({
        principal,
        id,
        changes,
        expectedVersions: versions,
      });
      sendPerson(res, person, today, grace);
    },
  );
  // The secretary's desk (SPEC §9): erasure and subject access, with the manage permission.
  router.delete('/people/:id', bearer('manage'), async (req: Request, res: Response) => {
    const id = idParam(req);
    // Erasing through the API is the confirmation: the page asks before it sends this.
    await erasePerson.execute({ id, confirmAccount: true, principal: principalOf(res) });
    res.json({ erased: id });
  });
  router.all('/people/:id', methodNotAllowed('GET', 'PATCH', 'DELETE'));

  router.get('/people/:id/data', bearer('manage'), async (req: Request, res: Response) => {
    const data = await exportPersonData.execute({ id: idParam(req), visibleOnly: true });
    res.json(personDataView(data, (prefix) => tokens.mask(prefix)));
  });
  router.all('/people/:id/data', methodNotAllowed('GET'));
  router.put('/people/:id/record', bearer('manage'), acceptBody('json'), record.replace);
  router.all('/people/:id/record', methodNotAllowed('PUT'));
  router.post('/people/:id/memberships', bearer('manage'), acceptBody('json'), record.renew);
  router.all('/people/:id/memberships', methodNotAllowed('POST'));
  return router;
}
