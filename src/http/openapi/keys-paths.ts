import { ISSUED_KEY, LISTED_KEY, LISTED_KEYS } from './examples';
import { BEARER_HEADERS, COMMON_HEADERS, headerRef } from './headers';
import { idSchema } from './integers';
import type { Paths, ResponseObject } from './openapi-types';
import { schemaRef } from './openapi-types';
import {
  BASIC_ACCESS_FAILURES,
  BEARER_ACCESS_FAILURES,
  FAILURE_RESPONSES,
  json,
  responseRef,
} from './responses';

const BEARER = [{ bearer: [] }];

const revokedKey: ResponseObject = {
  description: 'The revoked key, token masked.',
  headers: BEARER_HEADERS,
  content: json(schemaRef('ApiKey'), LISTED_KEY),
};

/** POST, GET and DELETE /keys, DELETE /keys/{id}. */
export function keysPaths(): Paths {
  return {
    '/keys': {
      post: {
        operationId: 'issueKey',
        summary: 'Issue an API key',
        description:
          "Authenticates with the account's username and password (Basic) and returns a new bearer " +
          'token, shown in full only in this answer. After 10 failed attempts for one username or one ' +
          'client address within 15 minutes, every attempt answers 429 until the window has passed. ' +
          'An account holds at most 100 active keys.',
        tags: ['Keys'],
        security: [{ basic: [] }],
        requestBody: {
          description:
            'Optional. Without a body the key has every permission of the account, no name and no expiry. ' +
            'Asking for a permission the account lacks is a 400 naming it.',
          required: false,
          content: json(schemaRef('IssueKeyRequest'), {
            name: ISSUED_KEY.name,
            permissions: ISSUED_KEY.permissions,
            expires_in_days: 90,
          }),
        },
        responses: {
          201: {
            description: 'The new key, its token in full.',
            headers: COMMON_HEADERS,
            content: json(schemaRef('ApiKey'), ISSUED_KEY),
          },
          400: responseRef('BadRequest'),
          409: responseRef('Conflict'),
          413: responseRef('PayloadTooLarge'),
          415: responseRef('UnsupportedMediaType'),
          ...BASIC_ACCESS_FAILURES,
          // Too many password checks already waiting (a storm of sign-ins): try again a second later.
          503: {
            ...FAILURE_RESPONSES.ServiceUnavailable,
            headers: {
              ...FAILURE_RESPONSES.ServiceUnavailable.headers,
              'Retry-After': headerRef('Retry-After'),
            },
          },
        },
      },
      get: {
        operationId: 'listKeys',
        summary: "List the account's keys",
        description:
          "The active keys (neither revoked nor expired) of the calling key's account, oldest first, tokens masked. Needs no permission.",
        tags: ['Keys'],
        security: BEARER,
        responses: {
          200: {
            description: 'The active keys.',
            headers: BEARER_HEADERS,
            content: json({ type: 'array', items: schemaRef('ApiKey') }, LISTED_KEYS),
          },
          ...BEARER_ACCESS_FAILURES,
        },
      },
      delete: {
        operationId: 'revokeCurrentKey',
        summary: 'Revoke the key used for this request',
        description:
          'From then on the key is refused (by every instance within a second). Needs no permission.',
        tags: ['Keys'],
        security: BEARER,
        responses: { 200: revokedKey, ...BEARER_ACCESS_FAILURES },
      },
    },
    '/keys/{id}': {
      delete: {
        operationId: 'revokeKey',
        summary: 'Revoke another key of the same account',
        description: 'Needs no permission. A key of another account is not found.',
        tags: ['Keys'],
        security: BEARER,
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'Identifier of the key: a positive integer without leading zeros.',
            schema: idSchema(),
            example: LISTED_KEY.id,
          },
        ],
        responses: {
          200: revokedKey,
          400: responseRef('BearerBadRequest'),
          404: responseRef('BearerNotFound'),
          ...BEARER_ACCESS_FAILURES,
        },
      },
    },
  };
}
