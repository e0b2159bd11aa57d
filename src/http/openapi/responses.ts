import { BEARER_FAILURE_HEADERS, COMMON_HEADERS, headerRef } from './headers';
import type { MediaType, Reference, ResponseObject } from './openapi-types';
import { schemaRef } from './openapi-types';

export const responseRef = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });

/** A JSON body of this schema, with its example. */
export const json = (schema: MediaType['schema'], example?: unknown): Record<string, MediaType> => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

/** The Error body, its example saying `message`. */
export const errorBody = (message: string) => json(schemaRef('Error'), { errors: [message] });

/**
 * The failures operations share, each once: `Name` for operations without a bearer key, and
 * `BearerName` for those with one, whose answers may carry the rate-limit headers (a reference
 * cannot add headers to what it points at).
 */
const FAILURES: Record<
  string,
  { description: string; example: string; headers?: ResponseObject['headers'] }
> = {
  BadRequest: {
    description:
      'The request is malformed: a bad or unknown field (named in the message), malformed JSON, a body that is not a JSON object, or a bad path or query parameter.',
    example: 'unknown key "nickname"',
  },
  Unauthorized: {
    description:
      'Authentication failed (no, malformed, unknown, revoked or expired credentials, or a disabled account), or the key lacks the permission the operation needs (the message names it).',
    example: 'invalid, revoked or expired API key',
    headers: { 'WWW-Authenticate': headerRef('WWW-Authenticate') },
  },
  NotFound: {
    description: 'No such resource (admins are never found).',
    example: 'person 12 not found',
  },
  Conflict: {
    description: 'The change conflicts with existing data or a limit.',
    example: 'chat_id U024BE7LH is already used by another person',
  },
  Gone: {
    description:
      'The cursor is older than the changes kept (CHANGES_RETENTION_DAYS): list /people again and follow from its Changes-Cursor.',
    example:
      'after is older than the changes kept: list /people again (its Changes-Cursor header is where to follow from)',
  },
  PreconditionFailed: {
    description: 'If-Match names a version that is no longer current.',
    example: 'person 12 has changed since the version you read; read it again',
  },
  PayloadTooLarge: {
    description: 'The request body is larger than 16 KiB.',
    example: 'the request body is larger than 16 KiB',
  },
  UnsupportedMediaType: {
    description: 'The request body has a media type this operation does not accept.',
    example: 'the request body must be application/json',
  },
  TooManyRequests: {
    description:
      'The key used up its requests for this minute; or (unpaged searches) the key already runs 4 unpaged searches, or the instance 32, and none ended within about a second; or (POST /keys) too many failed attempts for the username or client address. Wait Retry-After seconds.',
    example: 'rate limit exceeded: 1200 requests a minute per key; retry after 42 s',
    headers: { 'Retry-After': headerRef('Retry-After') },
  },
  ServiceUnavailable: {
    description:
      'The database cannot be reached right now, or (POST /keys) too many password checks are waiting; the service recovers by itself. Retry-After, when present, says when to try again.',
    example: 'the database is unavailable; try again',
  },
  UnexpectedError: {
    description:
      'Any other failure, with the Error body: 500 when something unexpected went wrong (quote the X-Request-Id when reporting it), or a refusal of the HTTP request itself, such as 408 or 431.',
    example: 'internal server error',
  },
};

/** Every shared failure, as a component, by name. */
export const FAILURE_RESPONSES: Record<string, ResponseObject> = Object.fromEntries(
  Object.entries(FAILURES).flatMap(([name, { description, example, headers }]) => [
    [name, { description, headers: { ...COMMON_HEADERS, ...headers }, content: errorBody(example) }],
    [
      `Bearer${name}`,
      { description, headers: { ...BEARER_FAILURE_HEADERS, ...headers }, content: errorBody(example) },
    ],
  ]),
);

/** What the guard of a bearer operation can answer: refused credentials, the rate limit, no database. */
export const BEARER_ACCESS_FAILURES = {
  401: responseRef('BearerUnauthorized'),
  429: responseRef('BearerTooManyRequests'),
  503: responseRef('BearerServiceUnavailable'),
  default: responseRef('BearerUnexpectedError'),
};

/** What a Basic sign-in can answer: refused credentials, the login lockout, no database. */
export const BASIC_ACCESS_FAILURES = {
  401: responseRef('Unauthorized'),
  429: responseRef('TooManyRequests'),
  503: responseRef('ServiceUnavailable'),
  default: responseRef('UnexpectedError'),
};

/** What an open operation can answer besides its own: anything unexpected. */
export const OPEN_FAILURES = { default: responseRef('UnexpectedError') };
