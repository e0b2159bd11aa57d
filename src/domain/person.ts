import type { Contact } from './contact';
import type { Membership } from './membership';
import { checkIdentifier, checkText } from './text';

export const ROLES = ['member', 'admin'] as const;

export type Role = (typeof ROLES)[number];

export interface Person {
  id: number;
  role: Role;
  firstName: string;
  lastName: string;
  /** Never an empty string: an empty value means "not set" and is null. */
  chatId: string | null;
  plannerId: string | null;
  /** The society's own membership number; unique across people when set (SPEC §1). */
  memberNumber: string | null;
  /** Erased (SPEC §8): anonymised, and like an admin never shown. */
  erased: boolean;
  /** Incremented by every change; the HTTP layer turns it into an ETag. */
  version: number;
  contacts: Contact[];
  memberships: Membership[];
}

/** A person's own fields, without their contacts and memberships. */
export type PersonFields = Omit<Person, 'contacts' | 'memberships'>;

/**
 * Admins and erased people never appear in people results and cannot be read or changed through
 * them.
 */
export function isVisible(person: Pick<Person, 'role'> & { erased?: boolean }): boolean {
  return person.role !== 'admin' && person.erased !== true;
}

/**
 * isVisible as SQL, over `p`, the alias of a `people` row; every statement that shows or changes
 * people through the API is built from it, and test/integration/persistence/rules-in-sql.test.ts
 * holds it to isVisible. Not an admin is spelled `role = 'member'` (the only other role the table
 * allows): the unique index on members' chat_ids is partial on it, and serves a lookup by chat_id.
 * A conjunction: in parentheses beside an OR.
 */
export function visiblePersonSql(p: string): string {
  return `${p}.role = 'member' AND ${p}.erased_at IS NULL`;
}

/** What an erased person's names become (SPEC §8). */
export const ERASED_NAME = 'erased';

/**
 * The name the API gives each of a person's own fields that change: in its JSON, its messages, the
 * audit log and the change feed's `fields`.
 */
export const FIELD_NAMES = {
  firstName: 'first_name',
  lastName: 'last_name',
  chatId: 'chat_id',
  plannerId: 'planner_id',
  memberNumber: 'member_number',
} as const;

export type FieldName = (typeof FIELD_NAMES)[keyof typeof FIELD_NAMES];

/** The fields of a person that may be changed through the API. */
export interface PersonChanges {
  firstName?: string;
  lastName?: string;
  chatId?: string | null;
}

export const NAME_MAX_LENGTH = 100;
export const CHAT_ID_MAX_LENGTH = 64;
export const MEMBER_NUMBER_MAX_LENGTH = 64;

export type Checked<T> = { value: T } | { error: string };

/** A name as stored (NFC, trimmed), or an error message naming the field. */
export function nameRule(field: string, value: string): Checked<string> {
  const checked = checkText(value, { maxLength: NAME_MAX_LENGTH });
  if ('problem' in checked) return { error: `${field} ${checked.problem}` };
  if (checked.text === '') return { error: `${field} must not be empty` };
  return { value: checked.text };
}

/**
 * A chat_id or planner_id, identifiers the other system compares exactly, as stored: null, empty
 * and white space only mean "not set". Or an error message naming the field.
 */
export function chatIdRule(field: string, value: string | null): Checked<string | null> {
  if (value === null) return { value: null };
  const checked = checkIdentifier(value, CHAT_ID_MAX_LENGTH);
  if ('problem' in checked) return { error: `${field} ${checked.problem}` };
  return { value: checked.text === '' ? null : checked.text };
}

/** nameRule for a value whose type nothing has checked yet (a file being imported). */
export function checkName(field: string, value: unknown): Checked<string> {
  if (typeof value !== 'string') return { error: `${field} must be a string` };
  return nameRule(field, value);
}

/** chatIdRule for a value whose type nothing has checked yet (a file being imported). */
export function checkChatId(field: string, value: unknown): Checked<string | null> {
  if (value !== null && typeof value !== 'string') return { error: `${field} must be a string or null` };
  return chatIdRule(field, value);
}

/** A member_number follows the rules of chat_id: exact, 1..64 characters, blank means not set. */
export function checkMemberNumber(
  field: string,
  value: unknown,
): { value: string | null } | { error: string } {
  if (value === null) return { value: null };
  if (typeof value !== 'string') return { error: `${field} must be a string or null` };
  const checked = checkIdentifier(value, MEMBER_NUMBER_MAX_LENGTH);
  if ('problem' in checked) return { error: `${field} ${checked.problem}` };
  return { value: checked.text === '' ? null : checked.text };
}
