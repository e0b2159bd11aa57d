import type { IncomingRecord } from '../application/people/import-people';
import { csvPersonFile } from './csv-person-file';
import { personFile } from './person-file';
import type { ByteSource } from './read-json-array';

export type PeopleFormat = 'json' | 'csv';

/**
 * The records of an import, JSON or CSV. What the caller knows decides: a request's media type,
 * or a file's extension (`.csv`, `.json`). Otherwise the content does: JSON begins with `[` (or
 * `{`, which is then refused as not an array), which no CSV header can (its first cell is a
 * column name). The first chunk read to tell is handed on: the source is still read once.
 */
export async function peopleFrom(
  source: ByteSource,
  told: { format?: PeopleFormat; extension?: string } = {},
): Promise<AsyncIterable<IncomingRecord>> {
  const known = told.format ?? (told.extension === 'csv' ? 'csv' : told.extension === 'json' ? 'json' : null);
  if (known !== null) return known === 'csv' ? csvPersonFile(source) : personFile(source);
  const iterator = source.chunks()[Symbol.asyncIterator]();
  const first = await iterator.next();
  const replayed: ByteSource = {
    name: source.name,
    chunks: async function* () {
      if (first.done) return;
      yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    },
  };
  const start = first.done
    ? ''
    : first.value
        .subarray(0, 64)
        .toString('utf8')
        .replace(/^\ufeff/, '')
        .trimStart();
  return start === '' || start.startsWith('[') || start.startsWith('{')
    ? personFile(replayed)
    : csvPersonFile(replayed);
}
