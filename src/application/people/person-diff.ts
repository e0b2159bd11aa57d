import { compareContacts, type Contact, type ContactKind } from '../../domain/contact';
import type { Membership } from '../../domain/membership';
import { FIELD_NAMES, type FieldName, type Person, type Role } from '../../domain/person';
import type { ChangedField } from '../ports/change-log';
import type { NewContact, NewMembership, PersonReplacement } from '../ports/person-repository';

/** A field of a person as the API and the change feed name it. */
export type SyncedField = ChangedField;

/** One changed field, its old and new value as text (lists as JSON), for the report and the audit. */
export interface FieldChange {
  field: SyncedField;
  old: string | null;
  new: string | null;
}

/**
 * What a record says about a person (SPEC §6): a field it leaves out (undefined) is kept as it is;
 * null clears; `contacts` and `memberships`, when present, are the whole list.
 */
export interface WantedPerson {
  role?: Role;
  firstName?: string;
  lastName?: string;
  chatId?: string | null;
  plannerId?: string | null;
  memberNumber?: string | null;
  contacts?: NewContact[];
  /**
   * A spreadsheet's email, phone and address columns (SPEC §9): the value of the person's first
   * contact of each kind given, null for none. Their other contacts are not touched.
   */
  firstContacts?: Partial<Record<ContactKind, string | null>>;
  memberships?: NewMembership[];
}

export interface PersonDiff {
  changes: FieldChange[];
  /** What the repository must write; null when nothing changed. */
  replacement: PersonReplacement | null;
}

const SCALARS = Object.entries(FIELD_NAMES) as [keyof typeof FIELD_NAMES, FieldName][];

// What makes a stored child the same as a wanted one, twice: as a key (matching as multisets)
// and field by field (the same children in the same order, told without keys). Both name the
// same fields.
const contactKey = (c: NewContact) => JSON.stringify([c.kind, c.value, c.label]);
const membershipKey = (m: NewMembership) => JSON.stringify([m.club, m.kind, m.startDate, m.endDate]);
const sameContact = (s: Contact, w: NewContact) =>
  s.kind === w.kind && s.value === w.value && s.label === w.label;
/** Whether a stored membership is the one a record gives: the same club, kind and dates. */
export const sameMembership = (s: Membership, w: NewMembership) =>
  s.club.name === w.club && s.kind === w.kind && s.startDate === w.startDate && s.endDate === w.endDate;

function describeContacts(contacts: NewContact[]): string {
  return JSON.stringify(contacts.map((c) => ({ kind: c.kind, value: c.value, label: c.label })));
}

function describeMemberships(memberships: NewMembership[]): string {
  return JSON.stringify(
    memberships.map((m) => ({ club: m.club, kind: m.kind, start_date: m.startDate, end_date: m.endDate })),
  );
}

const storedMembership = (m: Membership): NewMembership => ({
  club: m.club.name,
  kind: m.kind,
  startDate: m.startDate,
  endDate: m.endDate,
});

/**
 * Matches wanted children to existing ones as multisets: an existing child equal to a wanted one
 * is kept (with its id); the others are removed and the unmatched wanted ones added. The usual
 * case, the same children in the same order (a file exported and imported again), is told
 * without keys: building them for every child was a tenth of a sync's dry run.
 */
function matchChildren<S extends { id: number }, W>(
  existing: S[],
  wanted: W[],
  same: (s: S, w: W) => boolean,
  keyOfExisting: (s: S) => string,
  keyOfWanted: (w: W) => string,
): { remove: number[]; add: W[] } {
  if (existing.length === wanted.length && existing.every((child, at) => same(child, wanted[at]))) {
    return { remove: [], add: [] };
  }
  const available = new Map<string, number[]>();
  for (const child of existing) {
    const key = keyOfExisting(child);
    const ids = available.get(key);
    if (ids === undefined) available.set(key, [child.id]);
    else ids.push(child.id);
  }
  const add: W[] = [];
  for (const child of wanted) {
    const ids = available.get(keyOfWanted(child));
    if (ids !== undefined && ids.length > 0) ids.shift();
    else add.push(child);
  }
  return { remove: [...available.values()].flat(), add };
}

/**
 * The contacts `wanted.firstContacts` leads to: for each kind given, the first contact of that kind
 * (by kind, then id, as they are shown) is kept when its value is the same, changed in place (id and
 * label kept) when it differs, added when there is none, removed when the value is null.
 */
function firstContactChanges(
  current: Contact[],
  firstContacts: NonNullable<WantedPerson['firstContacts']>,
): { remove: number[]; add: NewContact[]; change: { id: number; value: string }[]; result: NewContact[] } {
  const sorted = [...current].sort(compareContacts);
  const remove: number[] = [];
  const add: NewContact[] = [];
  const change: { id: number; value: string }[] = [];
  const result: (NewContact | null)[] = sorted.map((c) => ({ kind: c.kind, value: c.value, label: c.label }));
  for (const [kind, value] of Object.entries(firstContacts) as [ContactKind, string | null][]) {
    const position = sorted.findIndex((c) => c.kind === kind);
    const first = position === -1 ? undefined : sorted[position];
    if (value === null) {
      if (first !== undefined) {
        remove.push(first.id);
        result[position] = null;
      }
    } else if (first === undefined) {
      add.push({ kind, value, label: null });
      result.push({ kind, value, label: null });
    } else if (first.value !== value) {
      change.push({ id: first.id, value });
      result[position] = { kind, value, label: first.label };
    }
  }
  return { remove, add, change, result: result.filter((c): c is NewContact => c !== null) };
}

/**
 * What makes `current` match what `wanted` says of them (SPEC §6): the fields it carries, left-out
 * fields kept. Contacts and memberships that did not change keep their ids.
 */
export function diffPerson(current: Person, wanted: WantedPerson): PersonDiff {
  const changes: FieldChange[] = [];
  const fields: PersonReplacement['fields'] = {};
  for (const [key, field] of SCALARS) {
    const value = wanted[key];
    if (value === undefined || value === current[key]) continue;
    Object.assign(fields, { [key]: value });
    changes.push({ field, old: current[key], new: value });
  }
  let contacts: { remove: number[]; add: NewContact[]; change: { id: number; value: string }[] } = {
    remove: [],
    add: [],
    change: [],
  };
  let contactsAfter: NewContact[] | null = null;
  if (wanted.contacts !== undefined) {
    contacts = {
      ...matchChildren(current.contacts, wanted.contacts, sameContact, contactKey, contactKey),
      change: [],
    };
    contactsAfter = wanted.contacts;
  } else if (wanted.firstContacts !== undefined) {
    const first = firstContactChanges(current.contacts, wanted.firstContacts);
    contacts = first;
    contactsAfter = first.result;
  }
  if (contactsAfter !== null && contacts.remove.length + contacts.add.length + contacts.change.length > 0) {
    changes.push({
      field: 'contacts',
      old: describeContacts(current.contacts),
      new: describeContacts(contactsAfter),
    });
  }
  let memberships: { remove: number[]; add: NewMembership[] } = { remove: [], add: [] };
  if (wanted.memberships !== undefined) {
    memberships = matchChildren(
      current.memberships,
      wanted.memberships,
      sameMembership,
      (m) => membershipKey(storedMembership(m)),
      membershipKey,
    );
    if (memberships.remove.length > 0 || memberships.add.length > 0) {
      changes.push({
        field: 'memberships',
        old: describeMemberships(current.memberships.map(storedMembership)),
        new: describeMemberships(wanted.memberships),
      });
    }
  }
  if (changes.length === 0) return { changes, replacement: null };
  return {
    changes,
    replacement: {
      id: current.id,
      fields,
      removeContacts: contacts.remove,
      addContacts: contacts.add,
      changeContacts: contacts.change,
      removeMemberships: memberships.remove,
      addMemberships: memberships.add,
    },
  };
}
