import { CHANGE_VIEW_FIELDS, type ChangeView } from '../../application/changes/change-view';
import { integer, json, object } from './person-json-sql';

/**
 * The change `c` (a row of `changes`) as the JSON text of its ChangeView, byte for byte what
 * JSON.stringify(shownChange(...)) writes (see person-json-sql.ts for how). `person` is the SQL
 * of its person's JSON text as they are now, 'null' when there is none to show; leaving admins'
 * changes out is the query's part.
 */
export function changeJsonSql(person: string): string {
  const change: Record<keyof ChangeView, string> = {
    seq: integer('c.seq'),
    // As Date#toISOString writes it: UTC, milliseconds cut off (not rounded), as to_char's MS is.
    at: `'"' || to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`,
    type: json('c.type'),
    person_id: integer('c.person_id'),
    fields: json('c.fields'),
    by: json('c.by_key_id'),
    person,
  };
  return object(CHANGE_VIEW_FIELDS, change);
}
