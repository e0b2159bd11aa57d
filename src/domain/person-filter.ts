import type { Standing } from './standing';

/** A search over people. Every field is optional; given fields combine with AND. */
export interface PersonFilter {
  /** Case-insensitive exact match against any of the person's email contacts. */
  email?: string;
  /** Case-insensitive substring; `%`, `_` and `\` match themselves. */
  firstName?: string;
  lastName?: string;
  /** Exact, case-sensitive. */
  chatId?: string;
  /** Exact, case-sensitive. */
  memberNumber?: string;
  /** yes: at least one current membership; no: none. */
  active?: 'yes' | 'no';
  hasChat?: boolean;
  hasPlanner?: boolean;
  /**
   * `YYYY-MM-DD`: current today and not current on the day after this date, by the memberships
   * as recorded (isEndingBefore): whose membership ends by then unless they renew.
   */
  endingBefore?: string;
  /** People whose standing (SPEC §10) is one of these. */
  standing?: readonly Standing[];
  /** true: standing current or grace; false: any other. */
  inGoodStanding?: boolean;
}

export const FILTER_STRING_MAX_LENGTH = 255;

/**
 * A search by chat_id (unique) or by email (one person's address) finds a person or a handful:
 * a lookup, however it is asked for, and the chat bot asks it unpaged, often several at once.
 */
export function isLookup(filter: PersonFilter): boolean {
  return filter.chatId !== undefined || filter.email !== undefined;
}
