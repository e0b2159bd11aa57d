import { MAX_ID } from '../ids';
import { ADA } from './examples';
import { BEARER_HEADERS, headerRef } from './headers';
import { idSchema } from './integers';
import { MEMBERSHIP_RECORD, PERSON_RECORD } from './imports-paths';
import type { Operation, Parameter, Paths, ResponseObject } from './openapi-types';
import { schemaRef } from './openapi-types';
import { BEARER_ACCESS_FAILURES, json, responseRef } from './responses';

const RULES =
  "The record is one person of the JSON file POST /imports takes, written by the import's own rules, as a file of " +
  'this one record would be: a field left out is kept, null clears, contacts and memberships are the whole list ' +
  '(those unchanged keep their ids). Audited with the key, and told in the change feed with `by` this key. ' +
  'Errors as for imports, each naming its field (without the import\'s "record 0: "): 400 a bad record or an ' +
  'unknown field; 409 a chat_id or member_number someone else holds. Permission: manage.';

/** An id that names nobody: trying an operation that changes someone as proposed answers 404. */
const CHANGED_ID: Parameter = {
  name: 'id',
  in: 'path',
  required: true,
  description:
    'Identifier of the person: a positive integer without leading zeros. The example, the largest id there can ' +
    'be, names nobody (404): put the id of the person you mean to change.',
  schema: idSchema(),
  example: MAX_ID,
};

const IF_MATCH: Parameter = {
  name: 'If-Match',
  in: 'header',
  description:
    'An ETag from an earlier answer: the change is made only if the person is still at that version (412 otherwise; 404 comes first).',
  schema: { type: 'string' },
};

const answer = (description: string, extra: ResponseObject['headers'] = {}): ResponseObject => ({
  description,
  headers: { ...BEARER_HEADERS, ETag: headerRef('ETag'), ...extra },
  content: json(schemaRef('Person'), ADA),
});

const FAILURES = {
  400: responseRef('BearerBadRequest'),
  409: responseRef('BearerConflict'),
  413: responseRef('BearerPayloadTooLarge'),
  415: responseRef('BearerUnsupportedMediaType'),
  ...BEARER_ACCESS_FAILURES,
};

const ONE_PERSON_FAILURES = {
  ...FAILURES,
  404: responseRef('BearerNotFound'),
  412: responseRef('BearerPreconditionFailed'),
};

const RECORD_EXAMPLE = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  contacts: [{ kind: 'email', value: 'ada@example.org', label: 'home' }],
  memberships: [{ club: 'Northern Astronomers', kind: 'full', start_date: '2024-01-01', end_date: null }],
};

const RENEWAL_EXAMPLE = {
  club: 'Northern Astronomers',
  kind: 'full',
  start_date: '2025-01-01',
  end_date: '2025-12-31',
};

const ADD_PERSON: Operation = {
  operationId: 'addPerson',
  summary: 'Add a person (one import record)',
  description:
    `${RULES} Without id: the directory gives it (a record with id is 400). first_name and last_name are required. ` +
    'A member_number that already names someone is 409: this adds nobody (PUT /people/{id}/record changes them).',
  tags: ['Secretary'],
  security: [{ bearer: [] }],
  requestBody: {
    description: 'One import record, without id.',
    required: true,
    content: json(PERSON_RECORD, RECORD_EXAMPLE),
  },
  responses: {
    201: answer('The person added.', {
      Location: {
        description: 'The new person: /people/{id}.',
        required: true,
        schema: { type: 'string' },
        example: `/people/${ADA.id}`,
      },
    }),
    ...FAILURES,
  },
};

const REPLACE_RECORD: Operation = {
  operationId: 'writePersonRecord',
  summary: "Write a person's whole record (one import record)",
  description:
    `${RULES} The person becomes what the record says; an id in the record must be the path's, or left out. ` +
    'The same record again changes nothing (no new version, nothing audited or told). 404 for nobody, an admin or ' +
    'someone erased.',
  tags: ['Secretary'],
  security: [{ bearer: [] }],
  parameters: [CHANGED_ID, IF_MATCH],
  requestBody: {
    description: 'One import record.',
    required: true,
    content: json(PERSON_RECORD, RECORD_EXAMPLE),
  },
  responses: { 200: answer('The person as written, with its new ETag.'), ...ONE_PERSON_FAILURES },
};

const RENEW: Operation = {
  operationId: 'recordRenewal',
  summary: 'Record a renewal (one membership more)',
  description:
    'Adds one membership to the person, keeping the others (with their ids), as an import of their record with ' +
    'this membership added would. The same membership again (club, kind and dates) is 409. Audited with the key ' +
    'and told in the change feed (person.updated, fields memberships). 400 a bad membership, each message naming ' +
    'its field; 404 for nobody, an admin or someone erased. Permission: manage.',
  tags: ['Secretary'],
  security: [{ bearer: [] }],
  parameters: [CHANGED_ID, IF_MATCH],
  requestBody: {
    description: 'The membership: club by name, start_date required, end_date null for open-ended.',
    required: true,
    content: json(MEMBERSHIP_RECORD, RENEWAL_EXAMPLE),
  },
  responses: {
    201: answer('The person with the membership added, with its new ETag.'),
    ...ONE_PERSON_FAILURES,
  },
};

/** POST /people, PUT /people/{id}/record, POST /people/{id}/memberships (SPEC §9, "Editing over HTTP"). */
export function personRecordPaths(): Paths {
  return {
    '/people': { post: ADD_PERSON },
    '/people/{id}/record': { put: REPLACE_RECORD },
    '/people/{id}/memberships': { post: RENEW },
  };
}
