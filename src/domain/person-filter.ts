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
}

export const FILTER_STRING_MAX_LENGTH = 255;
