import type { ListChangesOutput } from '../application/changes/list-changes';
import { mapPerson } from './person.mapper';

type ListedChange = ListChangesOutput['changes'][number];

/**
 * A Change as the API shows it (SPEC §7), fields listed one by one; the person through the same
 * mapper as /people, so a client stores what it would have listed.
 */
export function mapChange(change: ListedChange, today: string) {
  return {
    seq: change.seq,
    at: change.at.toISOString(),
    type: change.type,
    person_id: change.personId,
    fields: change.fields === null ? null : [...change.fields],
    by: change.byKeyId,
    person: change.person === null ? null : mapPerson(change.person, today),
  };
}

export function mapChangePage(output: ListChangesOutput) {
  return {
    changes: output.changes.map((change) => mapChange(change, output.today)),
    cursor: output.cursor,
    has_more: output.hasMore,
  };
}
