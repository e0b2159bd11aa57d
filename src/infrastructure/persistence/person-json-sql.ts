import {
  type ClubView,
  type ContactView,
  type MembershipView,
  type PersonView,
  VIEW_FIELDS,
} from '../../application/people/person-view';
import { contactOrderSql } from '../../domain/contact';
import type { Grace } from '../../domain/grace';
import { currentMembershipSql } from '../../domain/membership';
import {
  goodStandingUntilSql,
  graceUntilSql,
  membershipStatusSql,
  personStandingSql,
} from '../../domain/standing';

/**
 * The read model, a deliberate fast path beside the one mapper: PostgreSQL writes each person as
 * the JSON text of its PersonView, mirroring personView (application/people/person-view.ts) byte
 * for byte, what JSON.stringify(personView(person, today)) writes, so that a search hands rows to
 * the client without reading them into a Person (toPerson, person-select.ts), mapping or
 * serialising them in node. Field names and their order come
 * from VIEW_FIELDS (the view's own functions); the SQL of each field is given below in records
 * keyed by the view's types, so that a field added to the view does not compile without its SQL.
 * The contract suite holds the two renderings to the same bytes on every database.
 *
 * Built by concatenation rather than row_to_json or json_build_object: those put spaces in or
 * need a subquery per object. `to_json(text)` escapes strings as JSON.stringify does (the short
 * forms \b \f \n \r \t, other control characters as \u00xx, nothing else); dates come out as
 * "YYYY-MM-DD".
 */

/** A JSON value of any type; SQL NULL becomes null. */
export function json(expression: string): string {
  return `coalesce(to_json(${expression})::text, 'null')`;
}

/** An integer that is never NULL (ids). */
export function integer(expression: string): string {
  return `(${expression})::text`;
}

function boolean(condition: string): string {
  return `CASE WHEN ${condition} THEN 'true' ELSE 'false' END`;
}

/** `{"a":<a>,"b":<b>}` with the fields in the view's order. */
export function object<K extends string>(fields: readonly K[], values: Record<K, string>): string {
  const parts = fields.map((field, i) => {
    if (!/^[a-z_]+$/.test(field)) throw new Error(`unexpected field name ${field}`);
    return `'${i === 0 ? '{' : ','}"${field}":' || ${values[field]}`;
  });
  return `(${parts.join(' || ')} || '}')`;
}

/** A JSON array of `element` over the rows of `from`, in `orderBy`; `[]` when there are none. */
function array(element: string, from: string, orderBy: string): string {
  return `coalesce((SELECT '[' || string_agg(${element}, ',' ORDER BY ${orderBy}) || ']' ${from}), '[]')`;
}

/** The club `cl` as the JSON text of its view. */
function clubJsonSql(): string {
  const club: Record<keyof ClubView, string> = { id: integer('cl.id'), name: json('cl.name') };
  return object(VIEW_FIELDS.club, club);
}

/** The clubs with the JSON text of their view, as renderedClubsSql() names them in a statement. */
export const RENDERED_CLUBS = 'rendered_clubs';

/**
 * A CTE of each club's JSON text, for a statement that renders many people: each club is
 * rendered once rather than once per membership (about 8% of the feed page's statement).
 */
export function renderedClubsSql(): string {
  return `${RENDERED_CLUBS} AS MATERIALIZED (SELECT cl.id, ${clubJsonSql()} AS json FROM clubs cl)`;
}

/**
 * The person `p` as the JSON text of its view; `today` is the parameter holding the date, `grace`
 * the directory's setting. With `clubsRendered`, the statement holds renderedClubsSql() in its WITH.
 */
export function personJsonSql(today: string, grace: Grace, clubsRendered = false): string {
  const day = `${today}::date`;
  const contact: Record<keyof ContactView, string> = {
    id: integer('c.id'),
    kind: json('c.kind'),
    value: json('c.value'),
    label: json('c.label'),
  };
  const membership: Record<keyof MembershipView, string> = {
    id: integer('m.id'),
    club: clubsRendered ? 'cl.json' : clubJsonSql(),
    kind: json('m.kind'),
    start_date: json('m.start_date'),
    end_date: json('m.end_date'),
    current: boolean(currentMembershipSql('m', day)),
    status: json(membershipStatusSql('m', day, grace)),
    grace_until: json(graceUntilSql('m', grace)),
  };
  const person: Record<keyof PersonView, string> = {
    id: integer('p.id'),
    first_name: json('p.first_name'),
    last_name: json('p.last_name'),
    chat_id: json('p.chat_id'),
    planner_id: json('p.planner_id'),
    member_number: json('p.member_number'),
    // Contacts by kind (email, phone, address), then id; memberships by start date, then id.
    contacts: array(
      object(VIEW_FIELDS.contact, contact),
      'FROM contacts c WHERE c.person_id = p.id',
      contactOrderSql('c'),
    ),
    memberships: array(
      object(VIEW_FIELDS.membership, membership),
      `FROM memberships m JOIN ${clubsRendered ? RENDERED_CLUBS : 'clubs'} cl ON cl.id = m.club_id WHERE m.person_id = p.id`,
      'm.start_date, m.id',
    ),
    standing: json(personStandingSql('p', day, grace)),
    good_standing_until: json(goodStandingUntilSql('p', day, grace)),
  };
  return object(VIEW_FIELDS.person, person);
}
