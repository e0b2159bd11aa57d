import { InvalidInput } from '../domain/errors';

/**
 * The largest page a list answers: GET /people and GET /changes (SPEC §2, §7). What a database
 * statement reads at once is sized by it too, where a read is answered like a page.
 */
export const MAX_PAGE_LIMIT = 1000;

/**
 * Refuses a page size that is not a whole number from 1 to MAX_PAGE_LIMIT (NaN included, which
 * stands for a size not written as a number); checked before anything is read.
 */
export function checkPageLimit(limit: number): void {
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
    throw new InvalidInput(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`);
  }
}
