import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import type { IncomingRecord } from '../application/people/import-people';
import { type ByteSource, RECORD_MAX_BYTES, UnreadableInput, utf8Text } from './read-json-array';
import { peopleFromRows, SHEET_COLUMNS, type SheetRow } from './sheet-rows';

/**
 * The people of a spreadsheet saved as CSV (SPEC §9), read once: RFC 4180 (csv-parse), UTF-8 with
 * or without a byte order mark, `,` or `;` as the header row shows. The rows, numbered as the
 * spreadsheet numbers them (the header is row 1), are read into people by sheet-rows.ts, as an
 * XLSX file's are.
 */
export function csvPersonFile(source: ByteSource): AsyncIterable<IncomingRecord> {
  return peopleFromRows(source.name, csvRows(source));
}

async function* csvRows(source: ByteSource): AsyncIterable<SheetRow> {
  const text = withoutByteOrderMark(utf8Text(source));
  const first = await headerLine(text);
  if (first.header.trim() === '') throw new UnreadableInput(`${source.name} is empty: it needs a header row`);
  const delimiter = delimiterOf(first.header);
  const parser = parse({
    delimiter,
    // Spreadsheets end lines with CR LF or LF; blank lines, and rows of empty cells, are no one.
    skip_empty_lines: true,
    max_record_size: RECORD_MAX_BYTES,
  });
  const input = Readable.from(first.rest());
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);

  let row = 0;
  let header: string[] | null = null;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      row += 1;
      header ??= cells.map((cell) => cell.trim());
      yield { number: row, cells };
    }
  } catch (error) {
    // csv-parse may fail before handing on the rows it read ahead, the header among them: the
    // header line, split as the delimiter was found, names the columns then.
    throw csvError(source, error, row, header ?? first.header.split(delimiter).map(unquote));
  }
}

async function* withoutByteOrderMark(text: AsyncIterable<string>): AsyncIterable<string> {
  let first = true;
  for await (const piece of text) {
    yield first && piece.charCodeAt(0) === 0xfeff ? piece.slice(1) : piece;
    first = false;
  }
}

/** The header row's text (up to its first line break), and all the text again from the start. */
async function headerLine(
  text: AsyncIterable<string>,
): Promise<{ header: string; rest: () => AsyncIterable<string> }> {
  const iterator = text[Symbol.asyncIterator]();
  const read: string[] = [];
  let header: string | null = null;
  while (header === null) {
    const next = await iterator.next();
    if (next.done) {
      header = read.join('');
      break;
    }
    read.push(next.value);
    const joined = read.join('');
    const end = joined.search(/\r?\n/);
    if (end !== -1) header = joined.slice(0, end);
    else if (joined.length > RECORD_MAX_BYTES) header = joined;
  }
  return {
    header,
    rest: async function* () {
      yield* read;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    },
  };
}

/** `,` or `;`: the one that splits the header row into the known columns, or failing that the more frequent. */
function delimiterOf(header: string): ',' | ';' {
  const known = (delimiter: string) =>
    header.split(delimiter).every((name) => (SHEET_COLUMNS as readonly string[]).includes(unquote(name)));
  if (known(';') && !known(',')) return ';';
  if (known(',')) return ',';
  return header.split(';').length > header.split(',').length ? ';' : ',';
}

function unquote(name: string): string {
  const trimmed = name.trim();
  return trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
}

// What csv-parse's failures mean to someone fixing a sheet, by the parser's code. Its own message is
// never shown nor logged: it quotes the start of the cell, and cells are members' data.
const BROKEN_QUOTES = 'a quote inside a cell must be doubled ("") and the cell quoted';
const REASONS: Record<string, { reason: string; inCell: boolean }> = {
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: {
    reason: 'it has not as many cells as the header has columns',
    inCell: false,
  },
  CSV_MAX_RECORD_SIZE: { reason: 'it is larger than 1 MiB, the most one record may take', inCell: false },
  CSV_QUOTE_NOT_CLOSED: { reason: 'a quoted cell is never closed', inCell: true },
  CSV_INVALID_CLOSING_QUOTE: { reason: BROKEN_QUOTES, inCell: true },
  // A quote inside a cell that does not start with one (Ann"e); csv-parse's code has no CSV_ prefix.
  INVALID_OPENING_QUOTE: { reason: BROKEN_QUOTES, inCell: true },
};

/** csv-parse's failures as one line naming the row, and the column when the failure is in a cell. */
function csvError(source: ByteSource, error: unknown, rowsRead: number, columns: readonly string[]): unknown {
  if (!(error instanceof CsvError)) return error;
  const { records, column } = error as CsvError & { records?: number; column?: unknown };
  const row = (typeof records === 'number' ? records : rowsRead) + 1;
  const known = REASONS[error.code];
  const name = known?.inCell && typeof column === 'number' ? columns[column] : undefined;
  const where = name === undefined || name === '' ? `row ${row}` : `row ${row}, column ${name}`;
  return new UnreadableInput(
    `${source.name} is not valid CSV: ${where}: ${known?.reason ?? `it cannot be read (${error.code})`}`,
  );
}
