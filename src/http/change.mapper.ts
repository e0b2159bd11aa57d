import type { ChangeView } from '../application/changes/change-view';
import type { ListChangesOutput } from '../application/changes/list-changes';

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

const CHANGES_OPENING = '{"changes":[';

/**
 * The answer's JSON text: the changes come rendered already, so they are joined into the text of
 * the page written with no change, not parsed and serialised again.
 */
export function mapChangePage(output: ListChangesOutput): string {
  const page: ChangePageJson = { changes: [], cursor: output.cursor, has_more: output.hasMore };
  // '{"changes":[]' comes first: the literal above lists changes first.
  const empty = JSON.stringify(page);
  const at = CHANGES_OPENING.length;
  return `${empty.slice(0, at)}${output.changes.join(',')}${empty.slice(at)}`;
}
