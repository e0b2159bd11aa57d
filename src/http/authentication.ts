import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Container } from 'inversify';
import { AuthenticateAccount } from '../application/keys/authenticate-account';
import { AuthenticateKey } from '../application/keys/authenticate-key';
import type { Principal } from '../application/principal';
import type { Account } from '../domain/account';
import { Forbidden, Unauthenticated } from '../domain/errors';
import type { Permission } from '../domain/permission';
import type { KeyTurns } from './key-turns';

const REALM = 'membership-directory';

const CHALLENGES = {
  Bearer: `Bearer realm="${REALM}"`,
  Basic: `Basic realm="${REALM}", charset="UTF-8"`,
} as const;

// RFC 6750 b64token: the characters a bearer token may have. Anything else (a quote, a comma,
// a second word) is not a token we could ever have issued.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
// RFC 7617: the credentials are one base64 word; padding only at the end, length a multiple of 4.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** "<scheme> <value>" with exactly one space between, or null when the header has another shape. */
function splitAuthorization(header: string): { scheme: string; value: string } | null {
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+\-.^_`|~]*) ([^ ]+)$/.exec(header);
  return match ? { scheme: match[1], value: match[2] } : null;
}

function schemeOf(header: string): string {
  return header.split(' ', 1)[0];
}

type BearerError = 'invalid_token' | 'insufficient_scope';

/**
 * The one place a 401's challenge is set (RFC 9110 §11.6.1): on the response, before the error
 * travels on, so that the error handler keeps it. A Bearer challenge may say what went wrong
 * (RFC 6750 §3).
 */
function challenge(res: Response, scheme: keyof typeof CHALLENGES, code?: BearerError): void {
  if (res.headersSent) return;
  const value = code === undefined ? CHALLENGES[scheme] : `${CHALLENGES[scheme]}, error="${code}"`;
  res.setHeader('WWW-Authenticate', value);
}

/** Every 401 of a Bearer route carries its challenge; `code` says what to do about it. */
function refuseBearer<E extends Error>(res: Response, error: E, code?: BearerError): E {
  challenge(res, 'Bearer', code);
  return error;
}

/** The token of an `Authorization: Bearer <token>` header; throws Unauthenticated for anything else. */
function bearerToken(req: Request, res: Response): string {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') {
    throw refuseBearer(res, new Unauthenticated('missing bearer token'));
  }
  if (schemeOf(header.trim()).toLowerCase() !== 'bearer') {
    throw refuseBearer(res, new Unauthenticated('authorization scheme must be Bearer'));
  }
  const parts = splitAuthorization(header);
  if (parts === null || !B64TOKEN.test(parts.value)) {
    throw refuseBearer(res, new Unauthenticated('malformed bearer token'), 'invalid_token');
  }
  return parts.value;
}

export interface BearerGuardOptions {
  /**
   * The route takes its key's turn itself (`takeTurn`), once it knows what the request asks: a
   * search that turns out to be an unpaged stream takes none, as its own limits bound it.
   */
  turnTakenByRoute?: boolean;
}

/** The guard of a Bearer route, for the permission it needs, if any. */
export type BearerGuard = (permission?: Permission, options?: BearerGuardOptions) => RequestHandler;

/** What a key's requests share across every route of one app: one rate-limit budget, one queue of turns. */
export interface KeyLimits {
  rateLimit: RequestHandler;
  turns: KeyTurns;
}

/**
 * The guard of every Bearer route, in the order SPEC §2 gives: authenticate the token (401), check
 * the permission the route needs, if any (401 naming it), count the request against its key's
 * rate limit (429), wait for the key's turn (KeyTurns; or the route does, see BearerGuardOptions).
 * Only then does the route look at its path, body or headers, so a request
 * without valid credentials learns nothing about them. On success `res.locals.principal` holds who
 * is calling and `res.locals.keyId` the key used (read by the request log, even for a refusal).
 */
export function bearerAuth(container: Container, { rateLimit, turns }: KeyLimits): BearerGuard {
  const authenticateKey = container.get(AuthenticateKey);
  return (permission, options) => async (req, res, next) => {
    const token = bearerToken(req, res);
    let principal: Principal;
    try {
      principal = await authenticateKey.execute({ token });
    } catch (error) {
      if (error instanceof Unauthenticated) throw refuseBearer(res, error, 'invalid_token');
      throw error;
    }
    res.locals.principal = principal;
    res.locals.keyId = principal.keyId;
    if (permission !== undefined && !principal.permissions.includes(permission)) {
      const missing = new Forbidden(`this key lacks the ${permission} permission`);
      throw refuseBearer(res, missing, 'insufficient_scope');
    }
    // Then the key's turn (fair sharing between keys): its other requests may be ahead of it.
    await rateLimit(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      if (options?.turnTakenByRoute) {
        res.locals.takeTurn = () => turns.take(principal.keyId, res);
        return next();
      }
      turns.take(principal.keyId, res).then((taken) => taken && next(), next);
    });
  };
}

/** The principal set by bearerAuth; a route that reads it without bearerAuth before it is a bug. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (principal === undefined) throw new Error('bearerAuth must run before this handler');
  return principal;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The username and password of an `Authorization: Basic base64(username:password)` header. The
 * username ends at the first colon (it may not contain one); the password may. Throws
 * Unauthenticated for a missing or malformed header; `basicChallenge` adds the challenge to the 401.
 */
export function basicCredentials(req: Request): { username: string; password: string } {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') throw new Unauthenticated('missing basic credentials');
  if (schemeOf(header.trim()).toLowerCase() !== 'basic') {
    throw new Unauthenticated('authorization scheme must be Basic');
  }
  const parts = splitAuthorization(header);
  if (parts === null || !BASE64.test(parts.value)) throw new Unauthenticated('malformed basic credentials');
  let decoded: string;
  try {
    decoded = UTF8.decode(Buffer.from(parts.value, 'base64'));
  } catch {
    throw new Unauthenticated('malformed basic credentials: not UTF-8');
  }
  // No username or password can hold U+0000, and the database would refuse to look one up.
  if (decoded.includes('\u0000')) throw new Unauthenticated('malformed basic credentials: a NUL character');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new Unauthenticated('malformed basic credentials: expected username:password');
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function clientAddress(req: Request): string {
  // req.ip honours the app's `trust proxy` setting; the socket address is the fallback for a
  // request whose connection is already gone.
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * Signs the request in by its Basic credentials (through the login lockout). On success
 * `res.locals.account` holds the account; `basicChallenge` must follow the route to challenge a 401.
 */
export function basicAuth(container: Container): RequestHandler {
  const authenticateAccount = container.get(AuthenticateAccount);
  return async (req, res, next) => {
    const { username, password } = basicCredentials(req);
    res.locals.account = await authenticateAccount.execute({
      username,
      password,
      clientAddress: clientAddress(req),
    });
    next();
  };
}

/** The account set by basicAuth; a route that reads it without basicAuth before it is a bug. */
export function accountOf(res: Response): Account {
  const account = res.locals.account as Account | undefined;
  if (account === undefined) throw new Error('basicAuth must run before this handler');
  return account;
}

/** Adds the Basic challenge to every 401 of a Basic route: malformed credentials or a wrong password. */
export const basicChallenge: ErrorRequestHandler = (error, _req, res, next) => {
  if (error instanceof Unauthenticated) challenge(res, 'Basic');
  next(error);
};
