/** The WWW-Authenticate challenges SPEC §2 prescribes, as a client reads them. */
export const BEARER_CHALLENGE = 'Bearer realm="membership-directory"';
export const INVALID_TOKEN = `${BEARER_CHALLENGE}, error="invalid_token"`;
export const INSUFFICIENT_SCOPE = `${BEARER_CHALLENGE}, error="insufficient_scope"`;
export const BASIC_CHALLENGE = 'Basic realm="membership-directory", charset="UTF-8"';
