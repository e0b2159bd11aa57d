import type { RequestHandler } from 'express';
import { HttpError } from './http-error';

/**
 * Mount with `router.all(path, methodNotAllowed('GET', 'POST'))` after a path's handlers: any other
 * method gets 405 with `Allow`, and OPTIONS gets 204 with the same list.
 */
export function methodNotAllowed(...methods: string[]): RequestHandler {
  const allowed = new Set(methods.map((method) => method.toUpperCase()));
  if (allowed.has('GET')) allowed.add('HEAD');
  allowed.add('OPTIONS');
  const allow = [...allowed].join(', ');
  return (req, res, next) => {
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allow);
      res.status(204).end();
      return;
    }
    next(new HttpError(405, `method ${req.method} is not allowed here; use ${allow}`, { Allow: allow }));
  };
}
