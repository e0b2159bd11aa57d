import { type Contact, type ContactKind, contactOrderSql } from '../../domain/contact';
import type { Membership } from '../../domain/membership';
import type { Person, PersonFields, Role } from '../../domain/person';

/*
 * A person read from the database into the domain's Person: the columns every statement selects,
 * the rows they come back as, and the one mapping from a row to a Person (toPerson), used by every
 * SQL adapter that answers people. The API's view of a Person is personView's to make
 * (application/people/person-view.ts); the read model renders that view in SQL instead
 * (person-json-sql.ts).
 */

/** A person's own fields (PersonFields), without the children. */
export const PERSON_FIELD_COLUMNS = `
  p.id, p.role, p.first_name, p.last_name, p.chat_id, p.planner_id, p.member_number,
  p.erased_at IS NOT NULL AS erased, p.version`;

/**
 * One person with its contacts and memberships in a single statement: the children come back as
 * JSON arrays already in display order, so a page of people costs one round trip, never one per person.
 * `json_build_object` writes DATE values as 'YYYY-MM-DD'.
 */
export const PERSON_COLUMNS = `${PERSON_FIELD_COLUMNS},
  COALESCE((
    SELECT json_agg(json_build_object('id', c.id, 'kind', c.kind, 'value', c.value, 'label', c.label)
                    ORDER BY ${contactOrderSql('c')})
    FROM contacts c WHERE c.person_id = p.id
  ), '[]') AS contacts,
  COALESCE((
    SELECT json_agg(json_build_object('id', m.id, 'club_id', cl.id, 'club_name', cl.name, 'kind', m.kind,
                                      'start_date', m.start_date, 'end_date', m.end_date)
                    ORDER BY m.start_date, m.id)
    FROM memberships m JOIN clubs cl ON cl.id = m.club_id WHERE m.person_id = p.id
  ), '[]') AS memberships`;

export interface PersonFieldsRow {
  id: number;
  role: Role;
  first_name: string;
  last_name: string;
  chat_id: string | null;
  planner_id: string | null;
  member_number: string | null;
  erased: boolean;
  version: number;
}

export interface PersonSelectRow extends PersonFieldsRow {
  contacts: { id: number; kind: ContactKind; value: string; label: string | null }[];
  memberships: {
    id: number;
    club_id: number;
    club_name: string;
    kind: string | null;
    start_date: string;
    end_date: string | null;
  }[];
}

export function toPersonFields(row: PersonFieldsRow): PersonFields {
  return {
    id: row.id,
    role: row.role,
    firstName: row.first_name,
    lastName: row.last_name,
    chatId: row.chat_id,
    plannerId: row.planner_id,
    memberNumber: row.member_number,
    erased: row.erased,
    version: row.version,
  };
}

export function toPerson(row: PersonSelectRow): Person {
  return {
    ...toPersonFields(row),
    contacts: row.contacts.map((c): Contact => ({ id: c.id, kind: c.kind, value: c.value, label: c.label })),
    memberships: row.memberships.map(
      (m): Membership => ({
        id: m.id,
        club: { id: m.club_id, name: m.club_name },
        kind: m.kind,
        startDate: m.start_date,
        endDate: m.end_date,
      }),
    ),
  };
}
