import { int32 } from './integers';
import type { Header, Reference } from './openapi-types';

export const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

// What the rate limit sends (rate-limit.ts; express-rate-limit's `standardHeaders: 'draft-8'`): one policy,
// named after its quota and window, as Structured Field lists.
const RATE_LIMIT_EXAMPLE = '"1200-in-1min"; r=1187; t=42';
const RATE_LIMIT_POLICY_EXAMPLE = '"1200-in-1min"; q=1200; w=60; pk=:YmQyNDcyM2FiNjk0:';

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
    schema: int32({ minimum: 1 }),
    required: true,
  },
  RateLimit: {
    description:
      "What is left of the calling key's limit in the current window (IETF RateLimit header fields, " +
      "draft 8): the policy's name, then `r`, the requests left, and `t`, the seconds until the window " +
      'starts again.',
    schema: { type: 'string', pattern: '^"[^"]+"; r=[0-9]+; t=[0-9]+$' },
    example: RATE_LIMIT_EXAMPLE,
    required: true,
  },
  'RateLimit-Policy': {
    description:
      "The calling key's limit (IETF RateLimit header fields, draft 8): the policy's name, then `q`, " +
      'the requests allowed (setting RATE_LIMIT_PER_MINUTE), `w`, the window in seconds, and `pk`, ' +
      'an opaque partition key that differs between keys.',
    schema: { type: 'string', pattern: '^"[^"]+"; q=[0-9]+; w=[0-9]+; pk=:[A-Za-z0-9+/]*={0,2}:$' },
    example: RATE_LIMIT_POLICY_EXAMPLE,
    required: true,
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

/** The rate-limit headers every answer of a bearer operation carries once its key is authenticated. */
export const RATE_LIMIT_HEADERS = ['RateLimit', 'RateLimit-Policy'] as const;

/**
 * The rate-limit headers on a failure of a bearer operation: there only when the key was
 * authenticated and counted before the request failed.
 */
export function rateLimitHeadersOfFailures(): Record<string, Header> {
  return Object.fromEntries(
    RATE_LIMIT_HEADERS.map((name) => [
      name,
      {
        ...HEADERS[name],
        description: `${HEADERS[name].description} Absent when the request was refused before its key was authenticated and counted (for example a failed authentication, or a body over 16 KiB).`,
        required: false,
      },
    ]),
  );
}
