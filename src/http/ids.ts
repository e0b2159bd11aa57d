import type { Request } from 'express';
import { InvalidInput } from '../domain/errors';
import { MAX_ID } from '../domain/ids';

export { MAX_ID };

/**
 * A page `limit` as the query string gives it: a number only when it is written as one (NaN
 * otherwise); the use case checks its range (checkPageLimit).
 */
export function limitParam(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  return /^[0-9]{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
}

/** The `:id` of a path: "01", "1.5" or "1e3" name nothing and are refused as malformed (400). */
export function idParam(req: Request): number {
  const raw = String(req.params.id);
  if (!/^[1-9][0-9]{0,9}$/.test(raw) || Number(raw) > MAX_ID) {
    throw new InvalidInput('id must be a positive integer');
  }
  return Number(raw);
}
