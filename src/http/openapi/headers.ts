import type { Header, Reference } from './openapi-types';

export const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

const RATE_LIMIT =
  "What is left of the calling key's limit in the current window (IETF RateLimit header fields, " +
  "draft 8): the policy's name, then `r`, the requests left, and `t`, the seconds until the window " +
  'starts again.';
const RATE_LIMIT_POLICY =
  "The calling key's limit (IETF RateLimit header fields, draft 8): the policy's name, then `q`, " +
  'the requests allowed (setting RATE_LIMIT_PER_MINUTE), `w`, the window in seconds, and `pk`, ' +
  'an opaque partition key that differs between keys.';
const IF_COUNTED =
  ' Absent when the request was refused before its key was authenticated and counted (for example a ' +
  'failed authentication, or a body over 16 KiB).';

// What express-rate-limit sends with `standardHeaders: 'draft-8'` (rate-limit.ts): one policy,
// named after its quota and window, as Structured Field lists.
const rateLimit: Omit<Header, 'description'> = {
  schema: { type: 'string', pattern: '^"[^"]+"; r=[0-9]+; t=[0-9]+$' },
  example: '"1200-in-1min"; r=1187; t=42',
};
const rateLimitPolicy: Omit<Header, 'description'> = {
  schema: { type: 'string', pattern: '^"[^"]+"; q=[0-9]+; w=[0-9]+; pk=:[A-Za-z0-9+/]*={0,2}:$' },
  example: '"1200-in-1min"; q=1200; w=60; pk=:YmQyNDcyM2FiNjk0:',
};

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
    schema: { type: 'integer', format: 'int32', minimum: 1 },
    required: true,
  },
  RateLimit: { description: RATE_LIMIT, ...rateLimit, required: true },
  'RateLimit-Policy': { description: RATE_LIMIT_POLICY, ...rateLimitPolicy, required: true },
  // The same on a failure of a bearer operation, where they are there only if the key was counted.
  'RateLimit-IfCounted': { description: `${RATE_LIMIT}${IF_COUNTED}`, ...rateLimit, required: false },
  'RateLimit-Policy-IfCounted': {
    description: `${RATE_LIMIT_POLICY}${IF_COUNTED}`,
    ...rateLimitPolicy,
    required: false,
  },
  'Changes-Cursor': {
    description:
      "The change feed's cursor, taken before the people were read: follow GET /changes?after= it to " +
      'miss nothing that changed since (a change may appear both in this list and in the feed).',
    schema: { type: 'string' },
    example: 'djEuM2Y1ZDJlMWEtN2M0Yi00YjBlLWE5ZjItOGQ2YzFlMGI0YTdlLjQy',
    required: true,
  },
  ETag: {
    description: 'Entity tag of this version of the person, for If-None-Match and If-Match.',
    schema: { type: 'string' },
    example: '"v3-20261121"',
    required: true,
  },
};

/** The headers of every answer. */
export const COMMON_HEADERS = {
  'X-Request-Id': headerRef('X-Request-Id'),
  'API-Version': headerRef('API-Version'),
};

/** The headers of every success of a bearer operation: its key was counted. */
export const BEARER_HEADERS = {
  ...COMMON_HEADERS,
  RateLimit: headerRef('RateLimit'),
  'RateLimit-Policy': headerRef('RateLimit-Policy'),
};

/** The headers of a failure of a bearer operation, whose key may not have been counted yet. */
export const BEARER_FAILURE_HEADERS = {
  ...COMMON_HEADERS,
  RateLimit: headerRef('RateLimit-IfCounted'),
  'RateLimit-Policy': headerRef('RateLimit-Policy-IfCounted'),
};
