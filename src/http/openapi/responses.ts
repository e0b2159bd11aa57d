import type { Header, JsonSchema, Reference, ResponseObject } from './openapi-types';
import { schemaRef } from './openapi-types';

const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

/** Headers described once and referenced by the answers that carry them. */
export const HEADERS: Record<string, Header> = {
  'X-Request-Id': {
    description: "Identifies the request in the logs: the client's own X-Request-Id when it sent a sane one.",
    schema: { type: 'string' },
    required: true,
  },
  'API-Version': {
    description: 'Version of this interface.',
    schema: { type: 'string', const: '1.0.0' },
    required: true,
  },
  'WWW-Authenticate': {
    description:
      'The challenge: Bearer (with error="invalid_token" or "insufficient_scope" when it applies), or Basic on POST /keys.',
    schema: { type: 'string' },
    required: true,
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 1 },
    required: true,
  },
  RateLimit: {
    description:
      'What is left of the per-key limit in the current window (IETF RateLimit header fields, draft 8), on answers to bearer-authenticated requests.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description:
      'The per-key limit: requests per window of 60 seconds (IETF RateLimit header fields, draft 8).',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'Entity tag of this version of the person, for If-None-Match and If-Match.',
    schema: { type: 'string' },
    required: true,
  },
};

/** An answer with the headers every response carries, plus `headers` of its own. */
export function answer(
  description: string,
  content?: Record<string, { schema: JsonSchema; example?: unknown }>,
  headers: Record<string, Header | Reference> = {},
): ResponseObject {
  return {
    description,
    headers: {
      'X-Request-Id': headerRef('X-Request-Id'),
      'API-Version': headerRef('API-Version'),
      ...headers,
    },
    ...(content === undefined ? {} : { content }),
  };
}

export const json = (schema: JsonSchema, example?: unknown) => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

function failure(description: string, example: string, headers: Record<string, Header | Reference> = {}) {
  return answer(description, json(schemaRef('Error'), { errors: [example] }), headers);
}

/** The error answers, each with the Error body. */
export const ERROR_RESPONSES: Record<string, ResponseObject> = {
  BadRequest: failure(
    'The request is malformed: a bad or unknown field (named in the message), malformed JSON, a body that is not a JSON object, or a bad path or query parameter.',
    'unknown key "nickname"',
  ),
  Unauthorized: failure(
    'Authentication failed (no, malformed, unknown, revoked or expired credentials, or a disabled account), or the key lacks the permission the operation needs (the message names it).',
    'invalid, revoked or expired API key',
    { 'WWW-Authenticate': headerRef('WWW-Authenticate') },
  ),
  NotFound: failure('No such resource (admins are never found).', 'person 42 not found'),
  Conflict: failure(
    'The change conflicts with existing data or a limit.',
    'chat_id 123456 is already used by another person',
  ),
  PreconditionFailed: failure(
    'If-Match names a version that is no longer current.',
    'person 42 has changed since the version you read; read it again',
  ),
  PayloadTooLarge: failure(
    'The request body is larger than 16 KiB.',
    'the request body is larger than 16 KiB',
  ),
  UnsupportedMediaType: failure(
    'The request body has a media type this operation does not accept.',
    'the request body must be application/json',
  ),
  TooManyRequests: failure(
    'The key used up its requests for this minute, or (POST /keys) too many failed attempts for the username or client address; wait Retry-After seconds.',
    'rate limit exceeded: 1200 requests a minute per key; retry after 42 s',
    {
      'Retry-After': headerRef('Retry-After'),
      RateLimit: headerRef('RateLimit'),
      'RateLimit-Policy': headerRef('RateLimit-Policy'),
    },
  ),
  ServiceUnavailable: failure(
    'The database cannot be reached right now; the service recovers by itself.',
    'the database is unavailable; try again',
  ),
};

const STATUS_NAMES: Record<number, keyof typeof ERROR_RESPONSES> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};

/** References to the error answers for these statuses, keyed by status, for an operation's responses. */
export function errors(...statuses: (keyof typeof STATUS_NAMES)[]): Record<string, Reference> {
  return Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: `#/components/responses/${STATUS_NAMES[status]}` }]),
  );
}

export { headerRef };
