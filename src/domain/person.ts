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
  /** Incremented by every change; the HTTP layer turns it into an ETag. */
  version: number;
  contacts: Contact[];
  memberships: Membership[];
}

/** Admins never appear in people results and cannot be read or changed through them. */
export function isVisible(person: Pick<Person, 'role'>): boolean {
  return person.role !== 'admin';
}

/** The fields of a person that may be changed through the API. */
export interface PersonChanges {
  firstName?: string;
  lastName?: string;
  chatId?: string | null;
}

export const NAME_MAX_LENGTH = 100;
export const CHAT_ID_MAX_LENGTH = 64;

/** Checks a name; returns it as stored (NFC, trimmed) or an error message naming the field. */
export function checkName(field: string, value: unknown): { value: string } | { error: string } {
  if (typeof value !== 'string') return { error: `${field} must be a string` };
  const checked = checkText(value, { maxLength: NAME_MAX_LENGTH });
  if ('problem' in checked) return { error: `${field} ${checked.problem}` };
  if (checked.text === '') return { error: `${field} must not be empty` };
  return { value: checked.text };
}

/**
 * Checks a chat_id or planner_id, identifiers the other system compares exactly: null, empty and
 * white space only mean "not set". Returns the value to store or an error message.
 */
export function checkChatId(field: string, value: unknown): { value: string | null } | { error: string } {
  if (value === null) return { value: null };
  if (typeof value !== 'string') return { error: `${field} must be a string or null` };
  const checked = checkIdentifier(value, CHAT_ID_MAX_LENGTH);
  if ('problem' in checked) return { error: `${field} ${checked.problem}` };
  return { value: checked.text === '' ? null : checked.text };
}
