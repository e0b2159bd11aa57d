import express, { type Request, type RequestHandler } from 'express';
import { InvalidInput } from '../domain/errors';
import { HttpError } from './http-error';
import { isUndecodableBody, NOT_UTF8, undecodableParameter } from './undecodable-text';
import { quoteName } from './validation';

const BODY_LIMIT = 16 * 1024;
export const TOO_LARGE_MESSAGE = 'the request body is larger than 16 KiB';
/** POST /imports takes a roster (SPEC §9): up to 10 MiB, on that route only. */
export const IMPORT_BODY_LIMIT = 10 * 1024 * 1024;
export const IMPORT_TOO_LARGE_MESSAGE = 'the request body is larger than 10 MiB';
export const IMPORT_PATH = '/imports';

// Keys that could reach Object.prototype through a later spread or assignment.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const bodyLengths = new WeakMap<Request, number>();

// What the parsers would pass over without a word, kept here to refuse it: bytes that are not
// UTF-8 (decoded to U+FFFD) and a `__proto__` key in a form (dropped by qs).
const rawProblems = new WeakMap<Request, string>();

function remember(req: Request, _res: unknown, buffer: Buffer, encoding: string): void {
  bodyLengths.set(req, buffer.length);
  if (isUndecodableBody(buffer, encoding)) rawProblems.set(req, `the request body ${NOT_UTF8}`);
}

function rememberForm(req: Request, res: unknown, buffer: Buffer, encoding: string): void {
  remember(req, res, buffer, encoding);
  const text = buffer.toString('latin1');
  const undecodable = undecodableParameter(text);
  if (undecodable !== null) {
    rawProblems.set(req, `${quoteName(undecodable)} ${NOT_UTF8}`);
    return;
  }
  for (const key of new URLSearchParams(text).keys()) {
    if (FORBIDDEN_KEYS.has(key)) {
      rawProblems.set(req, `the key "${key}" is not allowed`);
      return;
    }
  }
}

/** Whether the client sent a non-empty body that one of the parsers read. */
export function hasParsedBody(req: Request): boolean {
  return (bodyLengths.get(req) ?? 0) > 0;
}

function sendsBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

// No valid body nests more than two levels; the validators after this walk nested values
// recursively, and a 16 KiB body of brackets would exhaust their stack (a 500 instead of a 400).
const MAX_DEPTH = 32;

/**
 * What is wrong with a parsed body's shape: a prototype key or nesting too deep; null if nothing.
 * Its text is checked field by field, by the rules of SPEC §1 (src/domain/text.ts), so that the
 * answer names the field.
 */
function shapeProblem(value: unknown, depth = 1): string | null {
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_DEPTH) return `the request body is nested more than ${MAX_DEPTH} levels deep`;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return `the key "${key}" is not allowed`;
    const nested = shapeProblem((value as Record<string, unknown>)[key], depth + 1);
    if (nested !== null) return nested;
  }
  return null;
}

export type BodyType = 'json' | 'form';

const MEDIA_TYPES: Record<BodyType, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
};

const PARSERS: Record<BodyType, RequestHandler> = {
  json: express.json({ limit: BODY_LIMIT, strict: true, verify: remember }),
  form: express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 100, verify: rememberForm }),
};

/** A body of a media type the route does not take is refused with 415, not ignored as if absent. */
function refuseOtherMediaTypes(types: BodyType[]): RequestHandler {
  const accepted = types.map((type) => MEDIA_TYPES[type]);
  return (req, _res, next) => {
    if (!sendsBody(req) || accepted.some((type) => req.is(type))) return next();
    // RFC 5789: a 415 to a PATCH says which media types the resource accepts.
    const headers: Record<string, string> =
      req.method === 'PATCH' ? { 'Accept-Patch': accepted.join(', ') } : {};
    next(new HttpError(415, `the request body must be ${accepted.join(' or ')}`, headers));
  };
}

/**
 * Only a JSON object is a valid body here (never an array or a bare value), and keys that name
 * prototype machinery are refused outright rather than dropped, so that no later spread can
 * pollute a prototype and no filter is silently widened; so are a body nested deeper than any
 * valid one and bytes that are not the UTF-8 they claim to be.
 */
const refuseBadShapes: RequestHandler = (req, _res, next) => {
  if (!hasParsedBody(req)) return next();
  if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
    return next(new InvalidInput('the request body must be a JSON object'));
  }
  const raw = rawProblems.get(req);
  if (raw !== undefined) return next(new InvalidInput(raw));
  const problem = shapeProblem(req.body);
  if (problem !== null) return next(new InvalidInput(problem));
  next();
};

/**
 * Reads the body of a route that takes one, as one of `types`, up to 16 KiB. A route mounts it
 * after authentication: a request without valid credentials learns nothing about its body.
 */
export function acceptBody(...types: BodyType[]): RequestHandler {
  const steps = [refuseOtherMediaTypes(types), ...types.map((type) => PARSERS[type]), refuseBadShapes];
  // One handler, which a request that announces no body at all (every GET a client sends) passes
  // at once: each step would let it through untouched.
  return (req, res, next) => {
    if (req.headers['transfer-encoding'] === undefined && req.headers['content-length'] === undefined) {
      return next();
    }
    let step = 0;
    const proceed = (error?: unknown) => {
      if (error !== undefined && error !== null) return next(error);
      const handler = steps[step++];
      if (handler === undefined) return next();
      try {
        handler(req, res, proceed);
      } catch (thrown) {
        next(thrown);
      }
    };
    proceed();
  };
}

/**
 * 413 for a body declared larger than any route reads, before anything else (SPEC allows the size
 * limit ahead of authentication), so that it is never read. A body sent without a length is
 * measured by the route's parser instead.
 */
export const refuseOversizedBody: RequestHandler = (req, _res, next) => {
  const length = Number(req.headers['content-length'] ?? 0);
  if (length <= BODY_LIMIT) return next();
  if (req.method === 'POST' && req.path === IMPORT_PATH) {
    return length > IMPORT_BODY_LIMIT ? next(new HttpError(413, IMPORT_TOO_LARGE_MESSAGE)) : next();
  }
  next(new HttpError(413, TOO_LARGE_MESSAGE));
};
