import type { Request, RequestHandler, Response } from 'express';
import type { Container } from 'inversify';
import { WritePersonRecord } from '../application/people/write-person-record';
import { TYPES } from '../application/ports/tokens';
import { InvalidInput } from '../domain/errors';
import type { Grace } from '../domain/grace';
import { checkMembershipRecord, checkPersonRecord } from '../person-file/person-file-record';
import { principalOf } from './authentication';
import { versionsMatching } from './entity-tag';
import { idParam } from './ids';
import { sendPerson } from './send-person';

/** One import record (SPEC §6), checked as the import checks each of a file's, naming its fields. */
function readRecord(body: unknown) {
  const checked = checkPersonRecord(body);
  if ('errors' in checked) throw new InvalidInput(checked.errors);
  return checked.record;
}

/**
 * POST /people, PUT /people/:id/record and POST /people/:id/memberships (SPEC §9, "Editing over
 * HTTP"): the secretary's edits of one person, each an import of one record (WritePersonRecord).
 * Mounted by the people router, behind the `manage` guard and a JSON body of up to 16 KiB.
 */
export function personRecordHandlers(
  container: Container,
): Record<'add' | 'replace' | 'renew', RequestHandler> {
  const writePersonRecord = container.get(WritePersonRecord);
  const grace = container.get<Grace>(TYPES.Grace);
  return {
    add: async (req: Request, res: Response) => {
      const person = readRecord(req.body);
      const written = await writePersonRecord.execute({
        principal: principalOf(res),
        write: { kind: 'add', person },
      });
      res.status(201).setHeader('Location', `/people/${written.person.id}`);
      sendPerson(res, written.person, written.today, grace);
    },
    replace: async (req: Request, res: Response) => {
      const id = idParam(req);
      const person = readRecord(req.body);
      const written = await writePersonRecord.execute({
        principal: principalOf(res),
        write: { kind: 'replace', id, person, expectedVersions: versionsMatching(req.get('If-Match')) },
      });
      sendPerson(res, written.person, written.today, grace);
    },
    renew: async (req: Request, res: Response) => {
      const id = idParam(req);
      const checked = checkMembershipRecord(req.body);
      if ('errors' in checked) throw new InvalidInput(checked.errors);
      const written = await writePersonRecord.execute({
        principal: principalOf(res),
        write: {
          kind: 'renew',
          id,
          membership: checked.membership,
          expectedVersions: versionsMatching(req.get('If-Match')),
        },
      });
      res.status(201);
      sendPerson(res, written.person, written.today, grace);
    },
  };
}
