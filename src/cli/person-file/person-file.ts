import type { IncomingRecord } from '../../application/people/import-people';
import { checkPersonRecord } from './person-file-record';
import { readJsonArray } from './read-json-array';

/**
 * The records of an import file, checked one by one as they are read: a function that reads the
 * file again from its start at each call, as the import asks.
 */
export function personFile(file: string): () => AsyncIterable<IncomingRecord> {
  return async function* () {
    for await (const { index, value } of readJsonArray(file)) {
      const checked = checkPersonRecord(value);
      yield 'errors' in checked ? { index, problems: checked.errors } : { index, person: checked.record };
    }
  };
}
