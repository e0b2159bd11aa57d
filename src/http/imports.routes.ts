import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Container } from 'inversify';
import { ExportPeople } from '../application/people/export-people';
import { ImportPeople, type PlannedChange } from '../application/people/import-people';
import type { Clock } from '../application/ports/clock';
import { TYPES } from '../application/ports/tokens';
import { InvalidInput } from '../domain/errors';
import { type PeopleFormat, peopleFrom } from '../person-file/people-from';
import { type PeopleProducer, writeCsvPeople, writeJsonPeople } from '../person-file/people-writers';
import { bufferSource } from '../person-file/read-json-array';
import { writeXlsxPeople, XLSX_MEDIA_TYPE } from '../person-file/xlsx-people-writer';
import { type BearerGuard, principalOf } from './authentication';
import { IMPORT_BODY_LIMIT, IMPORT_PATH, IMPORT_TOO_LARGE_MESSAGE } from './body-parsing';
import { messagesFor } from './error-messages';
import { HttpError } from './http-error';
import { methodNotAllowed } from './method-not-allowed';
import { singleValues } from './search-request';
import { quoteName } from './validation';

const MEDIA_TYPES: Record<PeopleFormat, string> = {
  json: 'application/json',
  csv: 'text/csv',
  xlsx: XLSX_MEDIA_TYPE,
};

/** What GET /export answers in each format. */
const EXPORT_TYPES: Record<PeopleFormat, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  xlsx: XLSX_MEDIA_TYPE,
};

/** The query's flags, `true` or `false`; anything else, or another parameter, is refused. */
function flags<K extends string>(req: Request, names: readonly K[]): Record<K, string | undefined> {
  const query = singleValues(req);
  const unknown = Object.keys(query).filter((key) => !(names as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new InvalidInput(
      messagesFor(
        unknown,
        (key) => `unknown query parameter ${quoteName(key)}; the parameters are ${names.join(', ')}`,
      ),
    );
  }
  return query as Record<K, string | undefined>;
}

function booleanFlag(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new InvalidInput(`${name} must be true or false`);
}

/** The format a request body says it is in; 415 for another media type or charset. */
function bodyFormat(req: Request): PeopleFormat {
  const format = (Object.keys(MEDIA_TYPES) as PeopleFormat[]).find((f) => req.is(MEDIA_TYPES[f]));
  if (format === undefined) {
    throw new HttpError(
      415,
      `the request body must be application/json (a JSON array of people), text/csv or ${XLSX_MEDIA_TYPE}`,
    );
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    throw new HttpError(415, 'the request body must be encoded as UTF-8');
  }
  return format;
}

/** The raw body, up to 10 MiB (a body sent without a length is measured as it comes). */
const readRawBody: RequestHandler = (() => {
  const parser = express.raw({ type: () => true, limit: IMPORT_BODY_LIMIT });
  return (req: Request, res: Response, next: NextFunction) =>
    parser(req, res, (error?: unknown) => {
      if ((error as { type?: unknown } | undefined)?.type === 'entity.too.large') {
        return next(new HttpError(413, IMPORT_TOO_LARGE_MESSAGE));
      }
      next(error);
    });
})();

/** One planned change as the answer lists it (IMPORT-API.md). */
function changeJson(change: Exclude<PlannedChange, { kind: 'duplicate' }>) {
  switch (change.kind) {
    case 'add':
      return {
        where: change.where,
        action: 'add',
        person_id: null,
        first_name: change.firstName,
        last_name: change.lastName,
        changes: [],
      };
    case 'update':
      return {
        where: change.where,
        action: 'update',
        person_id: change.personId,
        first_name: change.firstName,
        last_name: change.lastName,
        changes: change.changes.map((c) => ({ field: c.field, old: c.old, new: c.new })),
      };
    default:
      return {
        where: null,
        action: change.kind,
        person_id: change.person.id,
        first_name: change.person.firstName,
        last_name: change.person.lastName,
        changes: [],
      };
  }
}

/**
 * POST /imports and GET /export (SPEC §9): the secretary's import and export, the command line's
 * use cases driven over HTTP with the `manage` permission, audited with the key.
 */
export function importsRouter(container: Container, bearer: BearerGuard): express.Router {
  const router = express.Router();
  const importPeople = container.get(ImportPeople);
  const exportPeople = container.get(ExportPeople);
  const clock = container.get<Clock>(TYPES.Clock);

  // The guard first; then the query and the media type; only then is the body read.
  const importRequest: RequestHandler = (req, res, next) => {
    const query = flags(req, ['dry_run', 'remove_missing'] as const);
    res.locals.importRequest = {
      dryRun: booleanFlag('dry_run', query.dry_run),
      removeMissing: booleanFlag('remove_missing', query.remove_missing),
      format: bodyFormat(req),
    };
    next();
  };
  router.post(
    IMPORT_PATH,
    bearer('manage'),
    importRequest,
    readRawBody,
    async (req: Request, res: Response) => {
      const { dryRun, removeMissing, format } = res.locals.importRequest as {
        dryRun: boolean;
        removeMissing: boolean;
        format: PeopleFormat;
      };
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const changes: ReturnType<typeof changeJson>[] = [];
      const duplicates: unknown[] = [];
      const summary = await importPeople.execute({
        records: await peopleFrom(bufferSource('the request body', body), { format }),
        principal: principalOf(res),
        membersOnly: true,
        dryRun,
        removeMissing,
        onChange: (change) => {
          if (change.kind !== 'duplicate') {
            changes.push(changeJson(change));
            return;
          }
          duplicates.push({
            where: change.where,
            person_id: change.personId,
            first_name: change.firstName,
            last_name: change.lastName,
            reason: change.reason,
          });
        },
      });
      res.json({
        dry_run: dryRun,
        summary: {
          added: summary.added,
          updated: summary.updated,
          unchanged: summary.unchanged,
          erased: summary.erased,
          kept: summary.kept,
        },
        changes,
        possible_duplicates: duplicates,
      });
    },
  );
  router.all(IMPORT_PATH, methodNotAllowed('POST'));

  router.get('/export', bearer('manage'), async (req: Request, res: Response) => {
    const query = flags(req, ['format', 'current'] as const);
    const format = query.format ?? 'json';
    if (!Object.hasOwn(EXPORT_TYPES, format)) throw new InvalidInput('format must be csv, json or xlsx');
    const current = booleanFlag('current', query.current);
    if (current && format === 'json') {
      throw new InvalidInput('current=true is for a mail merge: give it with format=csv or format=xlsx');
    }
    const produce: PeopleProducer = (write) =>
      exportPeople.execute({ write, current, by: { principal: principalOf(res), format } });
    res.setHeader('Content-Type', EXPORT_TYPES[format as PeopleFormat]);
    res.setHeader('Content-Disposition', `attachment; filename="members-${clock.today()}.${format}"`);
    if (req.method === 'HEAD') {
      res.status(200).end();
      return;
    }
    await (format === 'csv'
      ? writeCsvPeople(res, produce, { current })
      : format === 'xlsx'
        ? writeXlsxPeople(res, produce, { current })
        : writeJsonPeople(res, produce));
    res.end();
  });
  router.all('/export', methodNotAllowed('GET'));
  return router;
}
