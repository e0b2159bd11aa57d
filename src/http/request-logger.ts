import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

function line(req: Request, res: Response, responseTime: number) {
  return {
    method: req.method,
    // The path without its query: filter values are personal data and stay out of the logs.
    path: req.originalUrl.split('?', 1)[0],
    route: req.route ? `${req.baseUrl}${String(req.route.path)}` : undefined,
    status: res.statusCode,
    durationMs: responseTime,
    keyId: res.locals.keyId,
    // The client went away before the whole answer was written.
    aborted: res.writableFinished ? undefined : true,
  };
}

/**
 * One JSON line per request. Nothing from headers or bodies is serialised, so an Authorization
 * header, a token or a password cannot reach the log even by accident.
 */
export function requestLogger(logger: Logger) {
  return pinoHttp<Request, Response>({
    logger,
    genReqId: (req) => req.id,
    customAttributeKeys: { reqId: 'requestId' },
    quietReqLogger: true,
    quietResLogger: true,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessObject: (req, res, value) => line(req, res, value.responseTime),
    customErrorObject: (req, res, _err, value) => line(req, res, value.responseTime),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
  });
}
