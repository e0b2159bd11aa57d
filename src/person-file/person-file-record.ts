import type { IncomingPerson } from '../application/people/import-people';
import type { NewContact, NewMembership } from '../application/ports/person-repository';
import { isCalendarDate } from '../domain/calendar-date';
import { CONTACT_VALUE_MAX_LENGTH, type ContactKind, EMAIL_SHAPE, isContactKind } from '../domain/contact';
import { MAX_ID } from '../domain/ids';
import {
  type Checked,
  checkChatId,
  checkMemberNumber,
  checkName,
  type Person,
  ROLES,
  type Role,
} from '../domain/person';
import { checkText, SHORT_TEXT_MAX_LENGTH } from '../domain/text';

/**
 * One person in the import and export file (SPEC §5, §6), as the file spells it: clubs by name,
 * every field present and null where empty, so that importing an export changes nothing. `id` is
 * the directory's, written by the export; a record may name its person by it or by member_number.
 */
export interface PersonFileRecord {
  id: number | null;
  member_number: string | null;
  first_name: string;
  last_name: string;
  chat_id: string | null;
  planner_id: string | null;
  role: Role;
  contacts: { kind: ContactKind; value: string; label: string | null }[];
  memberships: { club: string; kind: string | null; start_date: string; end_date: string | null }[];
}

type CheckedRecord = IncomingPerson;

const RECORD_FIELDS = [
  'id',
  'member_number',
  'first_name',
  'last_name',
  'chat_id',
  'planner_id',
  'role',
  'contacts',
  'memberships',
];
const CONTACT_FIELDS = ['kind', 'value', 'label'];
const MEMBERSHIP_FIELDS = ['club', 'kind', 'start_date', 'end_date'];

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a Person or a membership shows that the directory computes from the dates and settings
 * (SPEC §10): never part of a record, and refused by name, so that a file copied from an answer or
 * from `export --current` cannot pass off a computed value as one to keep.
 */
export const COMPUTED_FIELDS = ['current', 'status', 'grace_until', 'standing', 'good_standing_until'];

/** Why a computed field or column named `name` is refused; `what` says which ("field", "column"). */
export function computedFieldProblem(what: string, name: string): string {
  return `${what} ${JSON.stringify(name)} is computed by the directory from the dates (and GRACE_DAYS), never imported: leave it out`;
}

function unknownFields(path: string, value: Fields, allowed: string[], errors: string[]): void {
  for (const key of Object.keys(value)) {
    if (COMPUTED_FIELDS.includes(key)) errors.push(`${path}${computedFieldProblem('field', key)}`);
    else if (!allowed.includes(key)) errors.push(`${path}unknown field ${JSON.stringify(key)}`);
  }
}

/** An optional short text: absent, null and blank mean not set. */
function optionalText(field: string, value: unknown, errors: string[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    errors.push(`${field} must be a string or null`);
    return null;
  }
  const checked = checkText(value, { maxLength: SHORT_TEXT_MAX_LENGTH });
  if ('problem' in checked) {
    errors.push(`${field} ${checked.problem}`);
    return null;
  }
  return checked.text === '' ? null : checked.text;
}

/** A name a record may leave out (kept, or required to add someone: the import's to say). */
function name(field: string, value: unknown, errors: string[]): string | undefined {
  if (value === undefined) return undefined;
  return requiredName(field, value, errors);
}

/** A field a record may leave out: kept as it is (SPEC §6). */
function present<T>(value: unknown, read: () => T): T | undefined {
  return value === undefined ? undefined : read();
}

/** A checked value, or `fallback` with the check's error noted. */
function valueOr<T>(checked: Checked<T>, fallback: T, errors: string[]): T {
  if ('error' in checked) {
    errors.push(checked.error);
    return fallback;
  }
  return checked.value;
}

function requiredName(field: string, value: unknown, errors: string[]): string {
  if (value === undefined || value === null) {
    errors.push(`${field} is required`);
    return '';
  }
  return valueOr(checkName(field, value), '', errors);
}

function externalId(field: string, value: unknown, errors: string[]): string | null {
  if (value === undefined) return null;
  return valueOr(checkChatId(field, value), null, errors);
}

function personId(value: unknown, errors: string[]): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_ID) {
    errors.push(`id must be a whole number from 1 to ${MAX_ID}, or null`);
    return null;
  }
  return value;
}

function memberNumber(value: unknown, errors: string[]): string | null {
  if (value === undefined) return null;
  return valueOr(checkMemberNumber('member_number', value), null, errors);
}

function role(value: unknown, errors: string[]): Role | undefined {
  if (value === undefined || value === null) return undefined;
  if (!(ROLES as readonly unknown[]).includes(value)) {
    errors.push(`role must be one of ${ROLES.join(', ')}`);
    return 'member';
  }
  return value as Role;
}

function list(field: string, value: unknown, errors: string[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.push(`${field} must be an array`);
    return [];
  }
  return value;
}

function contact(path: string, value: unknown, errors: string[]): NewContact {
  const fallback = { kind: 'email' as const, value: '', label: null };
  if (!isObject(value)) {
    errors.push(`${path} must be an object`);
    return fallback;
  }
  unknownFields(`${path}.`, value, CONTACT_FIELDS, errors);
  const kind = value.kind;
  if (kind === undefined || kind === null) errors.push(`${path}.kind is required`);
  else if (!isContactKind(kind)) errors.push(`${path}.kind must be email, phone or address`);
  const label = optionalText(`${path}.label`, value.label, errors);
  if (value.value === undefined || value.value === null) {
    errors.push(`${path}.value is required`);
    return fallback;
  }
  if (typeof value.value !== 'string') {
    errors.push(`${path}.value must be a string`);
    return fallback;
  }
  // An address is one multi-line string: line breaks and tabs are allowed there, nowhere else.
  const checked = checkText(value.value, { maxLength: CONTACT_VALUE_MAX_LENGTH, lines: kind === 'address' });
  const text = 'text' in checked ? checked.text : '';
  if ('problem' in checked) errors.push(`${path}.value ${checked.problem}`);
  else if (text === '') errors.push(`${path}.value must not be empty`);
  else if (kind === 'email' && !EMAIL_SHAPE.test(text)) {
    errors.push(`${path}.value is not an email address`);
  }
  return { kind: isContactKind(kind) ? kind : 'email', value: text, label };
}

function date(field: string, value: unknown, required: boolean, errors: string[]): string | null {
  if (value === undefined || value === null) {
    if (required) errors.push(`${field} is required`);
    return null;
  }
  if (!isCalendarDate(value)) {
    errors.push(`${field} must be a calendar date written YYYY-MM-DD`);
    return null;
  }
  return value;
}

/** A membership; `prefix` is how its fields are named (`memberships[0].`, or nothing on its own). */
function membership(prefix: string, value: unknown, errors: string[]): NewMembership {
  if (!isObject(value)) {
    errors.push(
      prefix === ''
        ? 'must be an object with club and start_date'
        : `${prefix.slice(0, -1)} must be an object`,
    );
    return { club: '', kind: null, startDate: '', endDate: null };
  }
  unknownFields(prefix, value, MEMBERSHIP_FIELDS, errors);
  const club = requiredName(`${prefix}club`, value.club, errors);
  const kind = optionalText(`${prefix}kind`, value.kind, errors);
  const startDate = date(`${prefix}start_date`, value.start_date, true, errors);
  const endDate = date(`${prefix}end_date`, value.end_date, false, errors);
  if (startDate !== null && endDate !== null && endDate < startDate) {
    errors.push(`${prefix}end_date is before start_date`);
  }
  return { club, kind, startDate: startDate ?? '', endDate };
}

/** One membership on its own (a renewal), checked as a record's are, each problem naming its field. */
export function checkMembershipRecord(value: unknown): { membership: NewMembership } | { errors: string[] } {
  const errors: string[] = [];
  const checked = membership('', value, errors);
  return errors.length > 0 ? { errors } : { membership: checked };
}

/**
 * Checks one record of an import file. Every problem is reported, each naming its field
 * (`memberships[0].end_date is before start_date`), so that a volunteer can fix a file in one pass.
 */
export function checkPersonRecord(value: unknown): { record: CheckedRecord } | { errors: string[] } {
  if (!isObject(value)) return { errors: ['must be an object with first_name and last_name'] };
  const errors: string[] = [];
  unknownFields('', value, RECORD_FIELDS, errors);
  // A field the record leaves out is kept as it is (SPEC §6): undefined, not null.
  const record: CheckedRecord = {
    id: personId(value.id, errors),
    memberNumber: present(value.member_number, () => memberNumber(value.member_number, errors)),
    firstName: name('first_name', value.first_name, errors),
    lastName: name('last_name', value.last_name, errors),
    chatId: present(value.chat_id, () => externalId('chat_id', value.chat_id, errors)),
    plannerId: present(value.planner_id, () => externalId('planner_id', value.planner_id, errors)),
    role: role(value.role, errors),
    contacts: present(value.contacts, () =>
      list('contacts', value.contacts, errors).map((c, i) => contact(`contacts[${i}]`, c, errors)),
    ),
    memberships: present(value.memberships, () =>
      list('memberships', value.memberships, errors).map((m, i) =>
        membership(`memberships[${i}].`, m, errors),
      ),
    ),
  };
  for (const key of Object.keys(record) as (keyof CheckedRecord)[]) {
    if (record[key] === undefined) delete record[key];
  }
  return errors.length > 0 ? { errors } : { record };
}

/** The record of a person as the export writes it; the fields listed one by one, never more. */
export function toPersonRecord(person: Person): PersonFileRecord {
  return {
    id: person.id,
    member_number: person.memberNumber,
    first_name: person.firstName,
    last_name: person.lastName,
    chat_id: person.chatId,
    planner_id: person.plannerId,
    role: person.role,
    contacts: person.contacts.map((c) => ({ kind: c.kind, value: c.value, label: c.label })),
    memberships: person.memberships.map((m) => ({
      club: m.club.name,
      kind: m.kind,
      start_date: m.startDate,
      end_date: m.endDate,
    })),
  };
}
