import { SHEET_COLUMNS } from '../../person-file/sheet-rows';
import { CURRENT_CSV_COLUMNS } from '../../person-file/people-writers';
import { XLSX_MEDIA_TYPE } from '../../person-file/xlsx-people-writer';
import { IMPORT_TOO_LARGE_MESSAGE } from '../body-parsing';
import { BEARER_FAILURE_HEADERS, BEARER_HEADERS } from './headers';
import { idSchema, int32 } from './integers';
import type { JsonSchema, Operation, Paths } from './openapi-types';
import { BEARER_ACCESS_FAILURES, errorBody, json, responseRef } from './responses';

const nullableString = { type: ['string', 'null'] };
const text = { type: 'string' };

/** One membership of a record: a club by name and the dates. */
export const MEMBERSHIP_RECORD: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['club', 'start_date'],
  properties: {
    club: text,
    kind: nullableString,
    start_date: { type: 'string', format: 'date' },
    end_date: { type: ['string', 'null'], format: 'date' },
  },
};

/** One person of the JSON file `export` writes and `import` reads (SPEC §5, §6). */
export const PERSON_RECORD: JsonSchema = {
  type: 'object',
  description:
    'A person as the file spells them. On import every field but the names may be left out: a field left out is kept; null clears; contacts and memberships, when present, are the whole list. A record whose id or member_number names a person updates them; one naming nobody adds a person (first_name and last_name required).',
  additionalProperties: false,
  properties: {
    id: idSchema({ type: ['integer', 'null'] }),
    member_number: nullableString,
    first_name: text,
    last_name: text,
    chat_id: nullableString,
    planner_id: nullableString,
    role: { enum: ['member', 'admin'] },
    contacts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'value'],
        properties: {
          kind: { enum: ['email', 'phone', 'address'] },
          value: text,
          label: nullableString,
        },
      },
    },
    memberships: { type: 'array', items: MEMBERSHIP_RECORD },
  },
};

const WHERE = {
  type: ['string', 'null'],
  description:
    '"record N" (JSON, counted from 0) or "row N" (CSV, the header being row 1); null for people no record names.',
};

const IMPORT_RESULT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['dry_run', 'summary', 'changes', 'possible_duplicates'],
  properties: {
    dry_run: { type: 'boolean' },
    summary: {
      type: 'object',
      additionalProperties: false,
      required: ['added', 'updated', 'unchanged', 'erased', 'kept'],
      properties: Object.fromEntries(
        ['added', 'updated', 'unchanged', 'erased', 'kept'].map((name) => [name, int32({ minimum: 0 })]),
      ),
    },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['where', 'action', 'person_id', 'first_name', 'last_name', 'changes'],
        properties: {
          where: WHERE,
          action: {
            enum: ['add', 'update', 'erase', 'keep'],
            description:
              'keep: a member no record named who holds an account (listed, not erased, with remove_missing).',
          },
          person_id: idSchema({ type: ['integer', 'null'] }),
          first_name: text,
          last_name: text,
          changes: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['field', 'old', 'new'],
              properties: {
                field: {
                  enum: [
                    'first_name',
                    'last_name',
                    'chat_id',
                    'planner_id',
                    'member_number',
                    'contacts',
                    'memberships',
                  ],
                },
                old: { ...nullableString, description: 'Lists (contacts, memberships) as JSON text.' },
                new: nullableString,
              },
            },
          },
        },
      },
    },
    possible_duplicates: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['where', 'person_id', 'first_name', 'last_name', 'reason'],
        properties: {
          where: { type: 'string' },
          person_id: idSchema(),
          first_name: { ...text, description: "The existing member's." },
          last_name: text,
          reason: { enum: ['same email', 'same names'] },
        },
      },
    },
  },
};

const RECORD_EXAMPLE = {
  member_number: 'M-1815',
  first_name: 'Ada',
  last_name: 'Lovelace',
  contacts: [{ kind: 'email', value: 'ada@example.org', label: 'home' }],
  memberships: [{ club: 'Northfield', kind: 'full', start_date: '2024-01-01', end_date: null }],
};

const CSV_EXAMPLE = `${SHEET_COLUMNS.join(',')}\r\n,M-1815,Ada,Lovelace,ada@example.org,,,,,Northfield,full,2024-01-01,\r\n`;

const RESULT_EXAMPLE = {
  dry_run: true,
  summary: { added: 1, updated: 1, unchanged: 40, erased: 0, kept: 0 },
  changes: [
    { where: 'row 2', action: 'add', person_id: null, first_name: 'Ada', last_name: 'Lovelace', changes: [] },
    {
      where: 'row 5',
      action: 'update',
      person_id: 12,
      first_name: 'Grace',
      last_name: 'Hopper',
      changes: [{ field: 'last_name', old: 'Murray', new: 'Hopper' }],
    },
  ],
  possible_duplicates: [
    { where: 'row 2', person_id: 7, first_name: 'Ada', last_name: 'Lovelace', reason: 'same email' },
  ],
};

/** An XLSX workbook, in a body or an answer: bytes. */
const XLSX_CONTENT = { [XLSX_MEDIA_TYPE]: { schema: { type: 'string', format: 'binary' } } };

const flag = (name: string, description: string) => ({
  name,
  in: 'query' as const,
  description,
  schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
});

const IMPORT_PEOPLE: Operation = {
  operationId: 'importPeople',
  summary: 'Import a roster (JSON, CSV or XLSX)',
  description:
    "Brings the directory up to date from a roster, exactly as the command line's `import` does, all or nothing, audited with the key: " +
    'a JSON array of people (the format GET /export writes) or a CSV spreadsheet (columns by header name: ' +
    `${SHEET_COLUMNS.join(', ')}; one row per membership; \`,\` or \`;\`; UTF-8 with or without a byte order mark), ` +
    'or an XLSX workbook (its first sheet, the same columns by header name; a date cell is that day, a date written as text must be YYYY-MM-DD). ' +
    'A field or column left out is kept. With dry_run=true nothing is written and the answer lists every change. ' +
    'A bad file: 400, each message naming its record (or row) and field (or column); role admin is refused, and an admin is nobody here. Up to 10 MiB. Permission: manage.',
  tags: ['Secretary'],
  security: [{ bearer: [] }],
  parameters: [
    flag('dry_run', 'true: check and list every change, write nothing.'),
    flag(
      'remove_missing',
      'true: erase every member no record names (people holding an account are listed as keep, not erased).',
    ),
  ],
  requestBody: {
    description: 'The roster, at most 10 MiB.',
    required: true,
    content: {
      'application/json': { schema: { type: 'array', items: PERSON_RECORD }, example: [RECORD_EXAMPLE] },
      'text/csv': { schema: { type: 'string' }, example: CSV_EXAMPLE },
      ...XLSX_CONTENT,
    },
  },
  responses: {
    200: {
      description: 'What the import did (or, in a dry run, would do).',
      headers: BEARER_HEADERS,
      content: json(IMPORT_RESULT, RESULT_EXAMPLE),
    },
    400: responseRef('BearerBadRequest'),
    413: {
      description: 'The request body is larger than 10 MiB.',
      headers: BEARER_FAILURE_HEADERS,
      content: errorBody(IMPORT_TOO_LARGE_MESSAGE),
    },
    415: responseRef('BearerUnsupportedMediaType'),
    ...BEARER_ACCESS_FAILURES,
  },
};

const EXPORT_PEOPLE: Operation = {
  operationId: 'exportPeople',
  summary: 'Export the members (JSON, CSV or XLSX)',
  description:
    "Every member (never an admin or an erased person) as the command line's `export` writes them, as a download: " +
    'format=json (the default), the JSON array POST /imports reads; format=csv, the spreadsheet it reads ' +
    '(one row per membership, UTF-8 with a byte order mark); format=xlsx, the same columns and rows as a workbook of one sheet, ' +
    'every cell text (leading zeros and + kept, no formulas) except start_date and end_date, which are dates. ' +
    'With current=true (format=csv or xlsx), one row per current member ' +
    `for a mail merge: ${CURRENT_CSV_COLUMNS.join(', ')}. Audited with the key. Permission: manage.`,
  tags: ['Secretary'],
  security: [{ bearer: [] }],
  parameters: [
    {
      name: 'format',
      in: 'query',
      description: 'json (the default), csv or xlsx.',
      schema: { type: 'string', enum: ['json', 'csv', 'xlsx'], default: 'json' },
    },
    flag('current', 'true (with format=csv or xlsx only): one row per current member, for a mail merge.'),
  ],
  responses: {
    200: {
      description: 'The export, as an attachment.',
      headers: {
        ...BEARER_HEADERS,
        'Content-Disposition': {
          description:
            'attachment; filename="members-YYYY-MM-DD.csv" (or .json, .xlsx), the date being today in the directory\'s time zone.',
          required: true,
          schema: {
            type: 'string',
            pattern: '^attachment; filename="members-\\d{4}-\\d{2}-\\d{2}\\.(csv|json|xlsx)"$',
          },
        },
      },
      content: {
        'application/json': { schema: { type: 'array', items: PERSON_RECORD } },
        'text/csv': { schema: { type: 'string' }, example: CSV_EXAMPLE },
        ...XLSX_CONTENT,
      },
    },
    400: responseRef('BearerBadRequest'),
    ...BEARER_ACCESS_FAILURES,
  },
};

/** POST /imports and GET /export (SPEC §9). */
export function importsPaths(): Paths {
  return { '/imports': { post: IMPORT_PEOPLE }, '/export': { get: EXPORT_PEOPLE } };
}
