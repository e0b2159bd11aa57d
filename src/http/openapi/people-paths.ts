import { MAX_PAGE_LIMIT } from '../../application/page-limit';
import { MAX_ID } from '../ids';
import { ADA, FILTER, PEOPLE } from './examples';
import { BEARER_HEADERS, headerRef } from './headers';
import { idSchema, int32 } from './integers';
import type { JsonSchema, Parameter, Paths, ResponseObject } from './openapi-types';
import { schemaRef } from './openapi-types';
import { BEARER_ACCESS_FAILURES, FAILURE_RESPONSES, json, responseRef } from './responses';

const BEARER = [{ bearer: [] }];

/** The filter's fields as query parameters of GET /people: the same names and rules as the body. */
function filterParameters(filter: JsonSchema): Parameter[] {
  const properties = filter.properties as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    description: `${String(description ?? '')} Not together with a JSON body.`.trim(),
    schema,
  }));
}

const PAGE_PARAMETERS: Parameter[] = [
  {
    name: 'limit',
    in: 'query',
    description: 'Page size. Without it every match is returned, streamed.',
    schema: int32({ minimum: 1, maximum: MAX_PAGE_LIMIT }),
  },
  {
    name: 'after',
    in: 'query',
    description: 'Keyset paging: only people whose id is greater than this.',
    schema: idSchema({ minimum: 0 }),
  },
];

const ID_PARAMETER: Parameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Identifier of the person: a positive integer without leading zeros.',
  schema: idSchema(),
  example: ADA.id,
};

const PEOPLE_ANSWER: ResponseObject = {
  description: 'The matching people, ordered by id (admins excluded). An empty filter matches everyone.',
  headers: {
    ...BEARER_HEADERS,
    Link: {
      description: 'With limit, when more people match: `<...?limit=N&after=ID>; rel="next"`.',
      schema: { type: 'string' },
      example: '</people?active=yes&limit=2&after=13>; rel="next"',
    },
    'Changes-Cursor': headerRef('Changes-Cursor'),
  },
  content: json({ type: 'array', items: schemaRef('Person') }, PEOPLE),
};

const SEARCH_FAILURES = {
  400: responseRef('BearerBadRequest'),
  413: responseRef('BearerPayloadTooLarge'),
  415: responseRef('BearerUnsupportedMediaType'),
  ...BEARER_ACCESS_FAILURES,
};

const SEARCH =
  'Filters combine with AND. Every match is returned unless limit is given; then a Link header ' +
  'points to the next page. Permission: read.';

const personAnswer = (description: string): ResponseObject => ({
  description,
  headers: { ...BEARER_HEADERS, ETag: headerRef('ETag') },
  content: json(schemaRef('Person'), ADA),
});

const ONE_PERSON_FAILURES = {
  400: responseRef('BearerBadRequest'),
  404: responseRef('BearerNotFound'),
  ...BEARER_ACCESS_FAILURES,
};

const NOT_VISIBLE = 'Answers 404 for nobody, an admin or someone already erased, as GET /people/{id} does.';

/** GET /people, POST /people/search, GET, PATCH and DELETE /people/{id}, GET /people/{id}/data. */
export function peoplePaths(filter: JsonSchema): Paths {
  return {
    '/people': {
      get: {
        operationId: 'searchPeople',
        summary: 'Search people',
        // No requestBody: a GET with a body cannot be sent by browsers (so "Try it out" would fail)
        // nor by most generated clients. The service still accepts one.
        description:
          `${SEARCH} The filter comes as query parameters. The same filter is also accepted as ` +
          "a JSON body of the GET (the interface document's form; not together with filter " +
          'parameters), but browsers and many HTTP clients cannot send a body with a GET: ' +
          'POST /people/search takes it as a body instead.',
        tags: ['People'],
        security: BEARER,
        parameters: [...filterParameters(filter), ...PAGE_PARAMETERS],
        responses: { 200: PEOPLE_ANSWER, ...SEARCH_FAILURES },
      },
    },
    '/people/search': {
      post: {
        operationId: 'searchPeopleByBody',
        summary: 'Search people (filter in a POST body)',
        description: `${SEARCH} The same search as GET /people, for clients that cannot send a GET body.`,
        tags: ['People'],
        security: BEARER,
        parameters: PAGE_PARAMETERS,
        requestBody: {
          description: 'The filter; {} or an empty body matches everyone.',
          required: false,
          content: json(schemaRef('PersonFilter'), FILTER),
        },
        responses: { 200: PEOPLE_ANSWER, ...SEARCH_FAILURES },
      },
    },
    '/people/{id}': {
      get: {
        operationId: 'getPerson',
        summary: 'Read one person',
        description: 'Permission: read. Answers 404 for an admin as for a missing person.',
        tags: ['People'],
        security: BEARER,
        parameters: [
          ID_PARAMETER,
          {
            name: 'If-None-Match',
            in: 'header',
            description: 'An ETag from an earlier answer: 304 when the person is unchanged.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          200: personAnswer('The person.'),
          304: {
            description: 'Not modified: the copy named by If-None-Match is current.',
            headers: { ...BEARER_HEADERS, ETag: headerRef('ETag') },
          },
          ...ONE_PERSON_FAILURES,
        },
      },
      patch: {
        operationId: 'updatePerson',
        summary: 'Update a person',
        description:
          'Changes first_name, last_name and chat_id. Names are trimmed, 1 to 100 characters, no control ' +
          'characters; chat_id is 1 to 64 characters, and null or "" clears it. Every change is written ' +
          'to the audit log. Permission: write.',
        tags: ['People'],
        security: BEARER,
        parameters: [
          {
            ...ID_PARAMETER,
            // An id no person has (the largest an id can be): trying the operation as the reference
            // page proposes it answers 404 rather than changing a real member.
            description:
              'Identifier of the person: a positive integer without leading zeros. The example, the largest ' +
              'id there can be, names nobody (404): put the id of the person you mean to change.',
            example: MAX_ID,
          },
          {
            name: 'If-Match',
            in: 'header',
            description:
              'An ETag from an earlier answer: the change is made only if the person is still at that version (412 otherwise).',
            schema: { type: 'string' },
          },
        ],
        requestBody: {
          description: 'At least one field, in either JSON form, or form-encoded with the flat keys.',
          required: true,
          content: {
            'application/json': {
              schema: { oneOf: [schemaRef('PersonUpdateFlat'), schemaRef('PersonUpdateNested')] },
              examples: {
                flat: {
                  summary: "Flat keys (the interface document's form)",
                  value: { 'person[chat_id]': ADA.chat_id, 'person[first_name]': ADA.first_name },
                },
                nested: { summary: 'Nested object', value: { person: { last_name: 'King' } } },
              },
            },
            'application/x-www-form-urlencoded': {
              schema: schemaRef('PersonUpdateFlat'),
              example: { 'person[last_name]': 'King' },
            },
          },
        },
        responses: {
          200: personAnswer('The updated person, with its new ETag.'),
          409: responseRef('BearerConflict'),
          412: responseRef('BearerPreconditionFailed'),
          413: responseRef('BearerPayloadTooLarge'),
          415: {
            ...FAILURE_RESPONSES.BearerUnsupportedMediaType,
            headers: {
              ...FAILURE_RESPONSES.BearerUnsupportedMediaType.headers,
              'Accept-Patch': {
                description: 'The media types this operation accepts.',
                schema: { type: 'string' },
                example: 'application/json, application/x-www-form-urlencoded',
                required: true,
              },
            },
          },
          ...ONE_PERSON_FAILURES,
        },
      },
      delete: {
        operationId: 'erasePerson',
        summary: 'Erase a person (data protection)',
        description:
          'In one transaction: the names become "erased"; chat_id, planner_id and member_number are ' +
          'cleared; contacts are deleted; membership periods (club, kind, dates) stay for the ' +
          "society's statistics; an account is taken away (username, password hash, permissions and " +
          'key names gone, keys revoked); old and new values in audit entries about the person become ' +
          '"[erased]". The values are no longer in the database\'s tables or indexes when it answers. ' +
          'An audit entry records which account and key erased whom; the change feed says person.erased ' +
          `with \`by\` this key. ${NOT_VISIBLE} Permission: manage.`,
        tags: ['People'],
        security: BEARER,
        parameters: [ID_PARAMETER],
        responses: {
          200: {
            description: 'The person was erased.',
            headers: BEARER_HEADERS,
            content: json(schemaRef('Erased'), { erased: ADA.id }),
          },
          ...ONE_PERSON_FAILURES,
        },
      },
    },
    '/people/{id}/data': {
      get: {
        operationId: 'exportPersonData',
        summary: 'Everything held about a person (subject access)',
        description:
          'The answer to a subject access request: the person with contacts and memberships, their ' +
          'account (without its password hash) and every key it was issued (tokens masked), the audit ' +
          'entries about them and those their account made (those about other people without their ' +
          'values), and the changes about them in the feed, oldest first. The same JSON as ' +
          `\`npm run cli -- people export-data ID\` writes. ${NOT_VISIBLE} Permission: manage.`,
        tags: ['People'],
        security: BEARER,
        parameters: [ID_PARAMETER],
        responses: {
          200: {
            description: 'What the directory holds about the person.',
            headers: BEARER_HEADERS,
            content: json(schemaRef('PersonData')),
          },
          ...ONE_PERSON_FAILURES,
        },
      },
    },
  };
}
