import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import {
  Conflict,
  DomainError,
  Forbidden,
  Gone,
  InvalidInput,
  NotFound,
  Overloaded,
  PreconditionFailed,
  TooManyAttempts,
  Unauthenticated,
  Unavailable,
} from '../domain/errors';
import { TOO_LARGE_MESSAGE } from './body-parsing';
import { errorMessages } from './error-messages';
import { HttpError } from './http-error';

interface Answer {
  status: number;
  messages: string[];
  headers?: Record<string, string>;
}

/** The status of a domain error that carries nothing but its messages; null for an unknown kind. */
function domainStatus(error: DomainError): number | null {
  if (error instanceof InvalidInput) return 400;
  if (error instanceof NotFound) return 404;
  if (error instanceof Conflict) return 409;
  // The interface document answers 401 both for failed authentication and for a missing permission.
  if (error instanceof Unauthenticated || error instanceof Forbidden) return 401;
  if (error instanceof Gone) return 410;
  if (error instanceof PreconditionFailed) return 412;
  return null;
}

function retryAfter(seconds: number): Record<string, string> {
  return { 'Retry-After': String(Math.max(1, Math.ceil(seconds))) };
}

/** body-parser reports its failures as http-errors with a `type`; their messages stay server-side. */
function bodyParserAnswer(error: { type?: unknown; status?: unknown }): Answer | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return { status: 400, messages: ['the request body is not valid JSON'] };
    case 'entity.too.large':
      return { status: 413, messages: [TOO_LARGE_MESSAGE] };
    case 'encoding.unsupported':
      return { status: 415, messages: ['the request body has an unsupported Content-Encoding'] };
    case 'charset.unsupported':
      return { status: 415, messages: ['the request body must be encoded as UTF-8'] };
    case 'request.aborted':
      return { status: 400, messages: ['the request body was not received completely'] };
    case 'request.size.invalid':
      return { status: 400, messages: ['the request body does not match its Content-Length'] };
    case 'parameters.too.many':
      return { status: 413, messages: ['the request body has too many parameters'] };
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return null;
    default:
      return typeof error.type === 'string' && error.status === 400
        ? { status: 400, messages: ['the request body could not be read'] }
        : null;
  }
}

function answerFor(error: unknown): Answer | null {
  if (error instanceof HttpError)
    return { status: error.status, messages: error.messages, headers: error.headers };
  if (error instanceof TooManyAttempts)
    return { status: 429, messages: error.messages, headers: retryAfter(error.retryAfterSeconds) };
  if (error instanceof Overloaded)
    return { status: 503, messages: error.messages, headers: retryAfter(error.retryAfterSeconds) };
  // The adapters report an outage as Unavailable (see translateDatabaseError).
  if (error instanceof Unavailable)
    return { status: 503, messages: ['the database is unavailable; try again'] };
  if (error instanceof DomainError) {
    const status = domainStatus(error);
    return status === null ? null : { status, messages: errorMessages(error.messages, error.total) };
  }
  if (error !== null && typeof error === 'object' && 'type' in error) return bodyParserAnswer(error);
  // The router refuses a path parameter that is not valid percent-encoding.
  if (error instanceof URIError && (error as { status?: unknown }).status === 400) {
    return { status: 400, messages: ['the path is not valid percent-encoded UTF-8'] };
  }
  return clientErrorAnswer(error);
}

// zlib's and brotli's codes for input that does not decompress.
const DECOMPRESSION_CODES = /^(Z_|ERR_BROTLI|ERR__ERROR)/;

/**
 * Other http-errors that blame the request (a 4xx `status`): body-parser reports a body that does
 * not decompress this way, without a `type`. Their status stands; their text, written for
 * developers, is replaced.
 */
function clientErrorAnswer(error: unknown): Answer | null {
  if (error === null || typeof error !== 'object') return null;
  const { status, code } = error as { status?: unknown; code?: unknown };
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499) return null;
  if (typeof code === 'string' && DECOMPRESSION_CODES.test(code)) {
    return { status: 400, messages: ['the request body does not decompress as its Content-Encoding says'] };
  }
  const reason = (STATUS_CODES[status] ?? 'client error').toLowerCase();
  return { status, messages: [`the request cannot be processed: ${reason}`] };
}

/**
 * What of an error goes to the log: its kind, message, code and stack. Not its other properties,
 * which can carry what a client sent: body-parser keeps the raw request body in `body`, and a
 * driver error its query's `parameters`.
 */
function loggable(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const { code } = error as { code?: unknown };
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    stack: error.stack,
    // A translated database error keeps the driver's error as its cause: the operator needs it.
    ...(error.cause !== undefined && depth < 3 ? { cause: loggable(error.cause, depth + 1) } : {}),
  };
}

/**
 * The one place where failures become HTTP answers. Only messages written for clients leave the
 * process; anything unexpected is logged with its request id and answered with a bare 500. (A 401's
 * `WWW-Authenticate` challenge is the authentication's to set, as it alone knows the scheme.)
 */
// Express recognises an error middleware by its four parameters, hence the unused `_next`.
export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) {
    // Half an answer is already on the wire: appending an error would corrupt it.
    req.log?.error({ err: loggable(error) }, 'request failed after the response started');
    res.destroy();
    return;
  }
  const answer = answerFor(error);
  if (answer === null) {
    req.log?.error({ err: loggable(error) }, 'unexpected error');
    res.status(500).json({ errors: ['internal server error'] });
    return;
  }
  // A full sign-in queue is the service shedding load as designed, not a fault: a storm would
  // otherwise write a warning per refused request.
  if (answer.status >= 500 && !(error instanceof Overloaded)) {
    req.log?.warn({ err: loggable(error) }, 'request answered with a server error');
  }
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.status(answer.status).json({ errors: errorMessages(answer.messages) });
};
