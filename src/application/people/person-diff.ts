import type { Contact } from '../../domain/contact';
import type { Membership } from '../../domain/membership';
import type { Person } from '../../domain/person';
import type { ChangedField } from '../ports/change-log';
import type { NewContact, NewMembership, NewPerson, PersonReplacement } from '../ports/person-repository';

/** A field of a person as the API and the change feed name it. */
export type SyncedField = ChangedField;

/** One changed field, its old and new value as text (lists as JSON), for the report and the audit. */
export interface FieldChange {
  field: SyncedField;
  old: string | null;
  new: string | null;
}

export interface PersonDiff {
  changes: FieldChange[];
  /** What the repository must write; null when nothing changed. */
  replacement: PersonReplacement | null;
}

const SCALARS = [
  { key: 'firstName', field: 'first_name' },
  { key: 'lastName', field: 'last_name' },
  { key: 'chatId', field: 'chat_id' },
  { key: 'plannerId', field: 'planner_id' },
  { key: 'memberNumber', field: 'member_number' },
] as const;

const contactKey = (c: NewContact) => JSON.stringify([c.kind, c.value, c.label]);
const membershipKey = (m: NewMembership) => JSON.stringify([m.club, m.kind, m.startDate, m.endDate]);

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
 * is kept (with its id); the others are removed and the unmatched wanted ones added.
 */
function matchChildren<S extends { id: number }, W>(
  existing: S[],
  wanted: W[],
  keyOfExisting: (s: S) => string,
  keyOfWanted: (w: W) => string,
): { remove: number[]; add: W[] } {
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
 * What makes `current` match `wanted`, the whole truth about them (SPEC §6): names, ids, contacts
 * and memberships. Contacts and memberships that did not change keep their ids.
 */
export function diffPerson(current: Person, wanted: NewPerson): PersonDiff {
  const changes: FieldChange[] = [];
  const fields: PersonReplacement['fields'] = {};
  for (const { key, field } of SCALARS) {
    const value = wanted[key] ?? null;
    if (value === current[key]) continue;
    Object.assign(fields, { [key]: value });
    changes.push({ field, old: current[key], new: value });
  }
  const contacts = matchChildren<Contact, NewContact>(
    current.contacts,
    wanted.contacts,
    contactKey,
    contactKey,
  );
  if (contacts.remove.length > 0 || contacts.add.length > 0) {
    changes.push({
      field: 'contacts',
      old: describeContacts(current.contacts),
      new: describeContacts(wanted.contacts),
    });
  }
  const memberships = matchChildren<Membership, NewMembership>(
    current.memberships,
    wanted.memberships,
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
  if (changes.length === 0) return { changes, replacement: null };
  return {
    changes,
    replacement: {
      id: current.id,
      fields,
      removeContacts: contacts.remove,
      addContacts: contacts.add,
      removeMemberships: memberships.remove,
      addMemberships: memberships.add,
    },
  };
}
