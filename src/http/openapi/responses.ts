import { headerRef, rateLimitHeadersOfFailures } from './headers';
import type { Header, MediaType, Reference, ResponseObject } from './openapi-types';
import { schemaRef } from './openapi-types';

/** An answer with the headers every response carries, plus `headers` of its own. */
export function answer(
  description: string,
  content?: Record<string, MediaType>,
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

export const json = (schema: MediaType['schema'], example?: unknown): Record<string, MediaType> => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

interface Failure {
  /** The component name of its answer. */
  name: string;
  description: string;
  /** The example message of its Error body. */
  example: string;
  headers?: Record<string, Header | Reference>;
}

/**
 * Every failure an operation can answer, one definition per status: an operation lists the
 * statuses it can fail with (operation.ts), and a new status is one entry here.
 */
const FAILURES = {
  400: {
    name: 'BadRequest',
    description:
      'The request is malformed: a bad or unknown field (named in the message), malformed JSON, a body that is not a JSON object, or a bad path or query parameter.',
    example: 'unknown key "nickname"',
  },
  401: {
    name: 'Unauthorized',
    description:
      'Authentication failed (no, malformed, unknown, revoked or expired credentials, or a disabled account), or the key lacks the permission the operation needs (the message names it).',
    example: 'invalid, revoked or expired API key',
    headers: { 'WWW-Authenticate': headerRef('WWW-Authenticate') },
  },
  404: {
    name: 'NotFound',
    description: 'No such resource (admins are never found).',
    example: 'person 12 not found',
  },
  409: {
    name: 'Conflict',
    description: 'The change conflicts with existing data or a limit.',
    example: 'chat_id U024BE7LH is already used by another person',
  },
  410: {
    name: 'Gone',
    description:
      'The cursor is older than the changes kept (CHANGES_RETENTION_DAYS): list /people again and follow from its Changes-Cursor.',
    example:
      'after is older than the changes kept: list /people again (its Changes-Cursor header is where to follow from)',
  },
  412: {
    name: 'PreconditionFailed',
    description: 'If-Match names a version that is no longer current.',
    example: 'person 12 has changed since the version you read; read it again',
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The request body is larger than 16 KiB.',
    example: 'the request body is larger than 16 KiB',
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'The request body has a media type this operation does not accept.',
    example: 'the request body must be application/json',
  },
  429: {
    name: 'TooManyRequests',
    description:
      'The key used up its requests for this minute; or (unpaged searches) the key already runs 4 unpaged searches, or the instance 32; or (POST /keys) too many failed attempts for the username or client address. Wait Retry-After seconds.',
    example: 'rate limit exceeded: 1200 requests a minute per key; retry after 42 s',
    headers: { 'Retry-After': headerRef('Retry-After') },
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'The database cannot be reached right now, or (POST /keys) too many password checks are waiting; the service recovers by itself. Retry-After, when present, says when to try again.',
    example: 'the database is unavailable; try again',
  },
  default: {
    name: 'UnexpectedError',
    description:
      'Any other failure, with the Error body: 500 when something unexpected went wrong (quote the X-Request-Id when reporting it), or a refusal of the HTTP request itself, such as 408 or 431.',
    example: 'internal server error',
  },
} satisfies Record<number | 'default', Failure>;

export type ErrorStatus = Exclude<keyof typeof FAILURES, 'default'>;

/**
 * Whether the failure belongs to a bearer operation: then it may carry the rate-limit headers,
 * and it is a component of its own (`Bearer<Name>`), as a reference cannot add headers.
 */
export type FailureKind = 'bearer' | 'plain';

/** The answer of one failure, with `headers` of the operation's own. */
export function failure(
  status: ErrorStatus | 'default',
  kind: FailureKind,
  headers: Record<string, Header | Reference> = {},
): ResponseObject {
  const { description, example, headers: own } = FAILURES[status] as Failure;
  return answer(description, json(schemaRef('Error'), { errors: [example] }), {
    ...own,
    ...(kind === 'bearer' ? rateLimitHeadersOfFailures() : {}),
    ...headers,
  });
}

const componentName = (status: ErrorStatus | 'default', kind: FailureKind) =>
  `${kind === 'bearer' ? 'Bearer' : ''}${FAILURES[status].name}`;

/** A reference to the shared answer of one failure. */
export function failureRef(status: ErrorStatus | 'default', kind: FailureKind): Reference {
  return { $ref: `#/components/responses/${componentName(status, kind)}` };
}

/** Every shared failure answer, of both kinds, keyed by component name. */
export function failureComponents(): Record<string, ResponseObject> {
  const statuses = Object.keys(FAILURES).map((key) =>
    key === 'default' ? key : (Number(key) as ErrorStatus),
  );
  return Object.fromEntries(
    statuses.flatMap((status) =>
      (['plain', 'bearer'] as const).map((kind) => [componentName(status, kind), failure(status, kind)]),
    ),
  );
}
