import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

// A client's id is echoed only when it cannot smuggle anything into headers or logs.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,200}$/;

/** Gives every request an id (the client's when sane) and every response the protocol headers. */
export const requestId: RequestHandler = (req, res, next) => {
  const offered = req.get('X-Request-Id');
  const id = offered !== undefined && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
  req.id = id;
  res.setHeader('X-Request-Id', id);
  res.setHeader('API-Version', '1.0.0');
  next();
};
