import { DEFAULT_CHANGES_LIMIT } from '../../application/changes/list-changes';
import { MAX_PAGE_LIMIT } from '../../application/page-limit';
import { ADA } from './examples';
import { BEARER_HEADERS } from './headers';
import { int32 } from './integers';
import type { Operation, Paths } from './openapi-types';
import { schemaRef } from './openapi-types';
import { BEARER_ACCESS_FAILURES, json, responseRef } from './responses';

const EXAMPLE = {
  changes: [
    {
      seq: 41,
      at: '2026-11-21T09:30:00.000Z',
      type: 'person.updated',
      person_id: ADA.id,
      fields: ['chat_id'],
      by: 7,
      person: ADA,
    },
    {
      seq: 42,
      at: '2026-11-22T00:00:05.000Z',
      type: 'person.erased',
      person_id: 19,
      fields: null,
      by: null,
      person: null,
    },
  ],
  cursor: 'djEuM2Y1ZDJlMWEtN2M0Yi00YjBlLWE5ZjItOGQ2YzFlMGI0YTdlLjQy',
  has_more: false,
};

const LIST_CHANGES: Operation = {
  operationId: 'listChanges',
  summary: 'Follow changes',
  description:
    'Changes of people after a cursor, oldest first: person.created, person.updated (with the ' +
    'fields that changed), person.erased, and membership.started / ended as the calendar turns. ' +
    'Each carries the person as they are now and the key that made it. A client that keeps the ' +
    'cursor sees every change exactly once, in seq order, whatever commits concurrently. List ' +
    'GET /people once and follow from its Changes-Cursor header. Permission: read.',
  tags: ['Changes'],
  security: [{ bearer: [] }],
  parameters: [
    {
      name: 'after',
      in: 'query',
      description:
        'A cursor from an earlier answer or from the Changes-Cursor header of GET /people. Without it: ' +
        "from the oldest change kept. Another directory's or a malformed cursor: 400; one older than " +
        'the changes kept: 410.',
      schema: { type: 'string' },
    },
    {
      name: 'limit',
      in: 'query',
      description: `At most this many changes (default ${DEFAULT_CHANGES_LIMIT}).`,
      schema: int32({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_CHANGES_LIMIT }),
    },
  ],
  responses: {
    200: {
      description: 'The changes after the cursor, and the cursor to continue from.',
      headers: BEARER_HEADERS,
      content: json(schemaRef('ChangePage'), EXAMPLE),
    },
    400: responseRef('BearerBadRequest'),
    410: responseRef('BearerGone'),
    ...BEARER_ACCESS_FAILURES,
  },
};

/** GET /changes. */
export function changesPaths(): Paths {
  return { '/changes': { get: LIST_CHANGES } };
}
