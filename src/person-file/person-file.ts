import type { IncomingRecord } from '../application/people/import-people';
import { checkPersonRecord } from './person-file-record';
import { type ByteSource, RECORD_MAX_BYTES, readJsonArray } from './read-json-array';

const TOO_LARGE = `is larger than ${RECORD_MAX_BYTES / 1024 / 1024} MiB, the most one record may take`;

/**
 * The records of a JSON import file (a file, or a request's body), read once and checked one by
 * one as they are read. A record is named by its index, counted from 0: "record 3".
 */
export async function* personFile(source: ByteSource): AsyncIterable<IncomingRecord> {
  for await (const element of readJsonArray(source)) {
    const where = `record ${element.index}`;
    if ('tooLarge' in element) {
      yield { index: element.index, where, problems: [`${where}: ${TOO_LARGE}`] };
      continue;
    }
    const checked = checkPersonRecord(element.value);
    yield 'errors' in checked
      ? { index: element.index, where, problems: checked.errors.map((e) => `${where}: ${e}`) }
      : { index: element.index, where, person: checked.record };
  }
}
