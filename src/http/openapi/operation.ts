import { headerRef, RATE_LIMIT_HEADERS } from './headers';
import type { Operation, Reference, ResponseObject } from './openapi-types';
import { type ErrorStatus, failureRef } from './responses';

/** How an operation is called: with a bearer key, with Basic credentials (POST /keys), or by anyone. */
export type Access = 'bearer' | 'basic' | 'open';

const SECURITY: Record<Access, Operation['security']> = {
  bearer: [{ bearer: [] }],
  basic: [{ basic: [] }],
  open: [],
};

// What the access check itself can answer, on every operation behind it: refused credentials,
// the key's rate limit or the login lockout, and a database that cannot look credentials up.
const ACCESS_FAILURES: Record<Access, ErrorStatus[]> = {
  bearer: [401, 429, 503],
  basic: [401, 429, 503],
  open: [],
};

export interface OperationSpec extends Omit<Operation, 'security' | 'responses'> {
  access: Access;
  /** The answers of this operation alone, by status: its successes, and a failure with headers of its own. */
  responses: Record<number, ResponseObject>;
  /** The shared failures it can answer besides those of its access (responses.ts). Adding one is adding its status here. */
  errors?: ErrorStatus[];
}

/** Adds the rate-limit headers a bearer operation sends on every success. */
function withRateLimit(response: ResponseObject): ResponseObject {
  return {
    ...response,
    headers: {
      ...response.headers,
      ...Object.fromEntries(RATE_LIMIT_HEADERS.map((name) => [name, headerRef(name)])),
    },
  };
}

/**
 * An operation of the document: its security, its own answers, the shared failures of its access
 * and of its list, and a `default` for anything else, ordered by status.
 */
export function operation({ access, responses, errors = [], ...fields }: OperationSpec): Operation {
  const kind = access === 'bearer' ? 'bearer' : 'plain';
  const all: Record<string, ResponseObject | Reference> = {};
  for (const status of [...ACCESS_FAILURES[access], ...errors]) all[status] = failureRef(status, kind);
  for (const [status, response] of Object.entries(responses)) {
    all[status] = access === 'bearer' && Number(status) < 400 ? withRateLimit(response) : response;
  }
  const ordered = Object.keys(all)
    .sort()
    .map((status) => [status, all[status]]);
  return {
    ...fields,
    security: SECURITY[access],
    responses: { ...Object.fromEntries(ordered), default: failureRef('default', kind) },
  };
}
