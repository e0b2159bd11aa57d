import { type Grace, NO_GRACE } from '../../domain/grace';
import { isVisible } from '../../domain/person';
import { type PersonView, personView } from '../people/person-view';
import type { ChangeWithPerson, RenderedChange } from '../ports/change-feed';

/**
 * A Change as the API shows it (SPEC §7), fields listed one by one; the person through the same
 * view as /people, so a client stores what it would have listed. The database renders the same
 * view as JSON text for GET /changes (see change-json-sql.ts), taking its field names and their
 * order from CHANGE_VIEW_FIELDS; the contract suite holds both renderings to the same bytes.
 */
export interface ChangeView {
  seq: number;
  /** When the change's transaction ran, as Date#toISOString writes it (UTC, milliseconds). */
  at: string;
  type: ChangeWithPerson['type'];
  person_id: number;
  fields: string[] | null;
  by: number | null;
  person: PersonView | null;
}

/** Admins' changes are shown to nobody, but for person.removed, which says a member became one. */
function isHiddenChange(type: string, role: string | undefined): boolean {
  return role === 'admin' && type !== 'person.removed';
}

/**
 * isHiddenChange as SQL, for the change alias `c` and its person `p` (left joined: null when gone):
 * the feed's page and the webhooks' windows and backlog are built from it. The change-log contract
 * holds the feed's rendering to renderChange's.
 */
export function hiddenChangeSql(c: string, p: string): string {
  return `coalesce(${p}.role = 'admin' AND ${c}.type <> 'person.removed', false)`;
}

/**
 * The view of a change as a client may see it, on `today` (which decides the memberships that are
 * current), or null when it is not to be shown: admins' changes never appear (though the cursor
 * moves past them), but for person.removed, which tells followers that a member became one; and a
 * person who is no longer visible (erased, an admin) is null.
 */
export function shownChange(change: ChangeWithPerson, today: string, grace: Grace): ChangeView | null {
  const { person } = change;
  if (isHiddenChange(change.type, person?.role)) return null;
  return {
    seq: change.seq,
    at: change.at.toISOString(),
    type: change.type,
    person_id: change.personId,
    fields: change.fields === null ? null : [...change.fields],
    by: change.byKeyId,
    person: person !== null && isVisible(person) ? personView(person, today, grace) : null,
  };
}

/** The JSON text a client receives for a change, or null when it is not to be shown. */
export function renderChange(change: ChangeWithPerson, today: string, grace: Grace): RenderedChange {
  const view = shownChange(change, today, grace);
  return { seq: change.seq, json: view === null ? null : JSON.stringify(view) };
}

/** The field names of a ChangeView in the order JSON.stringify writes them, read off shownChange. */
export const CHANGE_VIEW_FIELDS = Object.keys(
  shownChange(
    {
      seq: 0,
      at: new Date(0),
      type: 'person.erased',
      personId: 0,
      fields: null,
      byKeyId: null,
      person: null,
    },
    '',
    NO_GRACE,
  ) as ChangeView,
) as (keyof ChangeView)[];
