import type { IncomingRecord } from '../application/people/import-people';
import { csvPersonFile } from './csv-person-file';
import { personFile } from './person-file';
import type { ByteSource } from './read-json-array';
import { xlsxPersonFile } from './xlsx-person-file';

export type PeopleFormat = 'json' | 'csv' | 'xlsx';

const READERS: Record<PeopleFormat, (source: ByteSource) => AsyncIterable<IncomingRecord>> = {
  json: personFile,
  csv: csvPersonFile,
  xlsx: xlsxPersonFile,
};

/** How every zip file, an XLSX workbook among them, begins: no JSON or CSV text can. */
const ZIP_SIGNATURE = Buffer.from('PK\x03\x04', 'latin1');

/**
 * The records of an import, JSON, CSV or XLSX. What the caller knows decides: a request's media
 * type, or a file's extension (`.csv`, `.json`, `.xlsx`). Otherwise the content does: an XLSX
 * workbook is a zip file, JSON begins with `[` (or `{`, which is then refused as not an array),
 * which no CSV header can (its first cell is a column name). The first chunk read to tell is
 * handed on: the source is still read once.
 */
export async function peopleFrom(
  source: ByteSource,
  told: { format?: PeopleFormat; extension?: string } = {},
): Promise<AsyncIterable<IncomingRecord>> {
  const extension = told.extension as PeopleFormat | undefined;
  const known =
    told.format ?? (extension !== undefined && Object.hasOwn(READERS, extension) ? extension : null);
  if (known !== null) return READERS[known](source);
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
  if (!first.done && first.value.subarray(0, ZIP_SIGNATURE.length).equals(ZIP_SIGNATURE)) {
    return xlsxPersonFile(replayed);
  }
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
