import type { Contact } from './contact';
import type { Membership } from './membership';

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

// Control characters, including newlines and tabs, have no place in a name.
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is exactly what it detects
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Checks and normalises a name; returns the trimmed value or an error message. */
export function checkName(field: string, value: unknown): { value: string } | { error: string } {
  if (typeof value !== 'string') return { error: `${field} must be a string` };
  const trimmed = value.trim();
  if (trimmed.length === 0) return { error: `${field} must not be empty` };
  if (trimmed.length > NAME_MAX_LENGTH)
    return { error: `${field} must be at most ${NAME_MAX_LENGTH} characters` };
  if (CONTROL_CHARACTERS.test(trimmed)) return { error: `${field} must not contain control characters` };
  return { value: trimmed };
}

/** Checks a chat_id; null or "" mean "not set". Returns the value to store or an error message. */
export function checkChatId(field: string, value: unknown): { value: string | null } | { error: string } {
  if (value === null || value === '') return { value: null };
  if (typeof value !== 'string') return { error: `${field} must be a string or null` };
  if (value.length > CHAT_ID_MAX_LENGTH)
    return { error: `${field} must be at most ${CHAT_ID_MAX_LENGTH} characters` };
  if (CONTROL_CHARACTERS.test(value)) return { error: `${field} must not contain control characters` };
  return { value };
}
