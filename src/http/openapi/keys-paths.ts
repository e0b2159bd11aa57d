import { ISSUED_KEY, LISTED_KEY, LISTED_KEYS } from './examples';
import { idSchema } from './integers';
import { operation } from './operation';
import type { Paths } from './openapi-types';
import { schemaRef } from './openapi-types';
import { headerRef } from './headers';
import { answer, failure, json } from './responses';

const KEYS_TAG = ['Keys'];

const issueKey = operation({
  access: 'basic',
  operationId: 'issueKey',
  summary: 'Issue an API key',
  description:
    "Authenticates with the account's username and password (Basic) and returns a new bearer " +
    'token, shown in full only in this answer. After 10 failed attempts for one username or one ' +
    'client address within 15 minutes, every attempt answers 429 until the window has passed. ' +
    'An account holds at most 100 active keys.',
  tags: KEYS_TAG,
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
    201: answer('The new key, its token in full.', json(schemaRef('ApiKey'), ISSUED_KEY)),
    // Too many password checks already waiting (a storm of sign-ins): try again a second later.
    503: failure(503, 'plain', { 'Retry-After': headerRef('Retry-After') }),
  },
  errors: [400, 409, 413, 415],
});

const listKeys = operation({
  access: 'bearer',
  operationId: 'listKeys',
  summary: "List the account's keys",
  description:
    "The active keys (neither revoked nor expired) of the calling key's account, oldest first, tokens masked. Needs no permission.",
  tags: KEYS_TAG,
  responses: {
    200: answer('The active keys.', json({ type: 'array', items: schemaRef('ApiKey') }, LISTED_KEYS)),
  },
});

const revokeCurrentKey = operation({
  access: 'bearer',
  operationId: 'revokeCurrentKey',
  summary: 'Revoke the key used for this request',
  description: 'From then on the key is refused (by every instance within a second). Needs no permission.',
  tags: KEYS_TAG,
  responses: { 200: answer('The revoked key, token masked.', json(schemaRef('ApiKey'), LISTED_KEY)) },
});

const revokeKey = operation({
  access: 'bearer',
  operationId: 'revokeKey',
  summary: 'Revoke another key of the same account',
  description: 'Needs no permission. A key of another account is not found.',
  tags: KEYS_TAG,
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
  responses: { 200: answer('The revoked key, token masked.', json(schemaRef('ApiKey'), LISTED_KEY)) },
  errors: [400, 404],
});

/** POST, GET and DELETE /keys, DELETE /keys/{id}. */
export function keysPaths(): Paths {
  return {
    '/keys': { post: issueKey, get: listKeys, delete: revokeCurrentKey },
    '/keys/{id}': { delete: revokeKey },
  };
}
