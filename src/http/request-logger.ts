import type { Express, Request, Response } from 'express';
import type { Logger } from 'pino';

declare module 'http' {
  interface IncomingMessage {
    /** The request id (see requestId): the client's when safe, else a fresh UUID. */
    id: string;
    /** A logger whose lines carry the request id, made on first use (errors: rare). */
    log: Logger;
  }
}

function line(req: Request, res: Response, durationMs: number) {
  return {
    requestId: req.id,
    method: req.method,
    // The path without its query: filter values are personal data and stay out of the logs.
    path: req.originalUrl.split('?', 1)[0],
    route: req.route ? `${req.baseUrl}${String(req.route.path)}` : undefined,
    status: res.statusCode,
    durationMs,
    keyId: res.locals.keyId,
    // Who sent it (through TRUST_PROXY's proxies): what an operator looks for after an attack.
    clientAddress: req.ip ?? req.socket.remoteAddress,
    // The client went away before the whole answer was written.
    aborted: res.writableFinished ? undefined : true,
  };
}

/** Writes a request's log line, once its answer has ended (or its client went away). */
export type RequestLog = (req: Request, res: Response, durationMs: number) => void;

/**
 * One JSON line per request, written when the answer ends (or the client goes away): info, or
 * error for an unexpected 5xx. Its fields are picked one by one above and nothing from headers or bodies is
 * among them, so an Authorization header, a token or a password cannot reach the log even by
 * accident. Cheap on purpose: one log call a request, no child logger unless the request logs
 * something else (`req.log`, made on first use). The request edge (see app.ts) calls it.
 */
export function requestLogger(app: Express, logger: Logger): RequestLog {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request): Logger {
      const log = logger.child({ requestId: this.id });
      Object.defineProperty(this, 'log', { value: log, configurable: true });
      return log;
    },
  });
  // The line's fields are picked above, none of them secret: the logger's redaction, there for
  // lines that carry objects (errors, requests), has nothing to do here and cost ~2% of a lookup.
  const lines = logger.child({}, { redact: [] });
  return (req, res, durationMs) => {
    // A route that has told the operator about its failure itself (a failing /readyz, told once
    // when it starts failing) marks it expected: its probes then do not repeat it at error level.
    const failed = res.statusCode >= 500 && res.locals.expectedFailure !== true;
    if (!lines.isLevelEnabled(failed ? 'error' : 'info')) return;
    const fields = line(req, res, durationMs);
    if (failed) lines.error(fields, 'request failed');
    else lines.info(fields, 'request completed');
  };
}
