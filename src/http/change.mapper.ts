import type { ChangeView } from '../application/changes/change-view';
import type { ChangePageEnd } from '../application/changes/list-changes';

/**
 * A Change as the API shows it: the view defined with its field list in the application layer,
 * where the database's rendering of the feed (the read model) takes its fields from too.
 */
export { shownChange as mapChange } from '../application/changes/change-view';

/** GET /changes's answer (SPEC §7), fields listed one by one. */
export interface ChangePageJson {
  changes: ChangeView[];
  cursor: string;
  has_more: boolean;
}

/** Where the answer's JSON text starts: its changes come next, as the store hands them on. */
export const CHANGE_PAGE_OPENING = '{"changes":[';

/**
 * What follows the changes in the answer's JSON text: the page written with no change, from its
 * changes' closing bracket on. The changes come rendered already and are joined in between, not
 * parsed and serialised again.
 */
export function changePageClosing(end: ChangePageEnd): string {
  const page: ChangePageJson = { changes: [], cursor: end.cursor, has_more: end.hasMore };
  // '{"changes":[]' comes first: the literal above lists changes first.
  return JSON.stringify(page).slice(CHANGE_PAGE_OPENING.length);
}
