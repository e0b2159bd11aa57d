import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';

const MAX_REQUEST_ID_LENGTH = 200;

// Visible ASCII and spaces: a client's own format (`{3f2504e0-…}`, `batch 42`) is echoed, while a
// control character, which could split a log line, or non-ASCII, which a header cannot carry as
// text, is not. (Node trims the spaces around a header value and refuses CR and LF in it.)
const SAFE_REQUEST_ID = /^[\x20-\x7e]+$/;

/** Gives the request an id (the client's when safe) and its response the protocol headers. */
export function assignRequestId(req: Request, res: Response): void {
  const offered = req.get('X-Request-Id');
  const safe =
    offered !== undefined && offered.length <= MAX_REQUEST_ID_LENGTH && SAFE_REQUEST_ID.test(offered);
  const id = safe ? offered : randomUUID();
  req.id = id;
  res.setHeader('X-Request-Id', id);
  res.setHeader('API-Version', '1.0.0');
}
