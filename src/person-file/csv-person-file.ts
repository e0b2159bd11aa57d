import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import type { IncomingPerson, IncomingRecord } from '../application/people/import-people';
import type { NewMembership } from '../application/ports/person-repository';
import type { ContactKind } from '../domain/contact';
import { InvalidInput } from '../domain/errors';
import { MAX_ID } from '../domain/ids';
import { checkPersonRecord } from './person-file-record';
import { type ByteSource, RECORD_MAX_BYTES, UnreadableInput, utf8Text } from './read-json-array';

/** The columns of a spreadsheet of people (SPEC §9), in the order the export writes them. */
export const CSV_COLUMNS = [
  'id',
  'member_number',
  'first_name',
  'last_name',
  'email',
  'phone',
  'address',
  'chat_id',
  'planner_id',
  'club',
  'kind',
  'start_date',
  'end_date',
] as const;

export type CsvColumn = (typeof CSV_COLUMNS)[number];

const MEMBERSHIP_COLUMNS: CsvColumn[] = ['club', 'kind', 'start_date', 'end_date'];
const CONTACT_COLUMNS: ContactKind[] = ['email', 'phone', 'address'];
/** The columns that say who a person is: the same on every row of theirs. */
const PERSON_COLUMNS = CSV_COLUMNS.filter((c) => !MEMBERSHIP_COLUMNS.includes(c));

/** One person's rows as they are gathered: the first row's person cells, and their memberships. */
interface Group {
  row: number;
  key: string | null;
  cells: Map<CsvColumn, string>;
  record: IncomingPerson | null;
  memberships: NewMembership[];
  problems: string[];
  size: number;
}

/**
 * The people of a spreadsheet saved as CSV (SPEC §9), read once: RFC 4180 (csv-parse), UTF-8 with
 * or without a byte order mark, `,` or `;` as the header row shows. Columns by header name; a
 * column the header leaves out is kept (SPEC §6). One row per membership: rows with the same
 * member_number (or, without one, the same id) are one person, wherever they are in the sheet,
 * whose other columns must agree; a person without memberships is one row with those cells empty.
 * `email`, `phone` and `address` are a person's first contact of that kind. Every row says a
 * member: a row cannot name an admin. Rows are named as the spreadsheet numbers them (the header is
 * row 1), and a bad cell by its row and column.
 *
 * A person's rows may be anywhere in the sheet, so people are handed on once the sheet has been
 * read, in the order of their first row: a spreadsheet is held whole by its program too (a million
 * rows at most), and each person's rows are checked as they come.
 */
export async function* csvPersonFile(source: ByteSource): AsyncIterable<IncomingRecord> {
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

  let columns: CsvColumn[] | null = null;
  let row = 0;
  const groups: Group[] = [];
  const byKey = new Map<string, Group>();
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      row += 1;
      if (columns === null) {
        columns = headerColumns(cells);
        continue;
      }
      if (cells.every((cell) => cell.trim() === '')) continue;
      const values = new Map<CsvColumn, string>(columns.map((column, i) => [column, cells[i]]));
      const key = keyOf(values);
      const existing = key === null ? undefined : byKey.get(key);
      const group = existing ?? newGroup(row, key, values);
      if (existing === undefined) {
        groups.push(group);
        if (key !== null) byKey.set(key, group);
      } else {
        for (const column of PERSON_COLUMNS) {
          if (values.has(column) && values.get(column) !== group.cells.get(column)) {
            group.problems.push(
              `row ${row}, column ${column}: differs from row ${group.row}, another row of the same person (${describeKey(key)}); a person's rows must agree`,
            );
          }
        }
      }
      group.size += cells.reduce((sum, cell) => sum + cell.length + 1, 0);
      if (group.size > RECORD_MAX_BYTES && !group.problems.some((p) => p.endsWith('MiB'))) {
        group.problems.push(`row ${group.row}: the rows of this person are larger than 1 MiB`);
      }
      addMembership(group, row, values);
    }
  } catch (error) {
    // csv-parse may fail before handing on the rows it read ahead, the header among them: the
    // header line, split as the delimiter was found, names the columns then.
    throw csvError(source, error, row, columns ?? first.header.split(delimiter).map(unquote));
  }
  if (columns === null) throw new UnreadableInput(`${source.name} is empty: it needs a header row`);
  for (const group of groups) {
    const where = `row ${group.row}`;
    if (group.problems.length > 0 || group.record === null) {
      yield { index: group.row, where, problems: group.problems };
      continue;
    }
    const person = group.record;
    if (columns.includes('club')) person.memberships = group.memberships;
    yield { index: group.row, where, person };
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
    header.split(delimiter).every((name) => (CSV_COLUMNS as readonly string[]).includes(unquote(name)));
  if (known(';') && !known(',')) return ';';
  if (known(',')) return ',';
  return header.split(';').length > header.split(',').length ? ';' : ',';
}

function unquote(name: string): string {
  const trimmed = name.trim();
  return trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
}

function headerColumns(cells: string[]): CsvColumn[] {
  const names = cells.map((cell) => cell.trim());
  const problems: string[] = [];
  for (const name of names) {
    if (!(CSV_COLUMNS as readonly string[]).includes(name)) {
      problems.push(
        name === ''
          ? 'row 1: a column has no name'
          : `row 1: unknown column ${JSON.stringify(name)} (the columns are ${CSV_COLUMNS.join(', ')})`,
      );
    } else if (
      names.indexOf(name) !== names.lastIndexOf(name) &&
      !problems.some((p) => p.includes(`"${name}" twice`))
    ) {
      problems.push(`row 1: the column "${name}" twice`);
    }
  }
  const present = MEMBERSHIP_COLUMNS.filter((c) => names.includes(c));
  if (present.length > 0 && present.length < MEMBERSHIP_COLUMNS.length) {
    const missing = MEMBERSHIP_COLUMNS.filter((c) => !names.includes(c));
    problems.push(
      `row 1: the membership columns ${MEMBERSHIP_COLUMNS.join(', ')} come together (a person's rows are their whole list of memberships): add ${missing.join(', ')}`,
    );
  }
  // Reported all at once, like a file's other problems.
  if (problems.length > 0) throw new InvalidInput(problems);
  return names as CsvColumn[];
}

/** Rows with the same member_number are one person; without one, rows with the same id. */
function keyOf(values: Map<CsvColumn, string>): string | null {
  const number = values.get('member_number')?.trim() ?? '';
  if (number !== '') return `member_number ${values.get('member_number')}`;
  const id = values.get('id')?.trim() ?? '';
  return id === '' ? null : `id ${id}`;
}

function describeKey(key: string | null): string {
  return key ?? 'no member_number or id';
}

function newGroup(row: number, key: string | null, values: Map<CsvColumn, string>): Group {
  const group: Group = { row, key, cells: values, record: null, memberships: [], problems: [], size: 0 };
  // The person's cells, checked by the rules of a JSON record (person-file-record.ts); the
  // messages name the row and the column instead of the field.
  const value: Record<string, unknown> = {};
  const contactColumns: ContactKind[] = [];
  for (const column of PERSON_COLUMNS) {
    const cell = values.get(column);
    if (cell === undefined) continue;
    if (column === 'id') {
      const trimmed = cell.trim();
      const id = /^[0-9]{1,10}$/.test(trimmed) ? Number(trimmed) : Number.NaN;
      if (trimmed === '') value.id = null;
      else if (id >= 1 && id <= MAX_ID) value.id = id;
      else group.problems.push(`row ${row}, column id: must be a whole number from 1 to ${MAX_ID}, or empty`);
    } else if ((CONTACT_COLUMNS as string[]).includes(column)) {
      if (cell.trim() !== '') contactColumns.push(column as ContactKind);
    } else value[column] = cell;
  }
  value.contacts = contactColumns.map((kind) => ({ kind, value: values.get(kind), label: null }));
  const checked = checkPersonRecord(value);
  if ('errors' in checked) {
    for (const error of checked.errors) group.problems.push(atColumn(row, error, contactColumns));
    return group;
  }
  const { contacts: _contacts, ...person } = checked.record;
  const firstContacts: Partial<Record<ContactKind, string | null>> = {};
  for (const kind of CONTACT_COLUMNS) {
    if (!values.has(kind)) continue;
    firstContacts[kind] = checked.record.contacts?.find((c) => c.kind === kind)?.value ?? null;
  }
  group.record = {
    ...person,
    id: checked.record.id ?? null,
    // A spreadsheet holds members only (SPEC §9): a row naming an admin is refused by the import.
    role: 'member',
    ...(Object.keys(firstContacts).length > 0 ? { firstContacts } : {}),
  };
  return group;
}

function addMembership(group: Group, row: number, values: Map<CsvColumn, string>): void {
  if (!values.has('club')) return;
  const cells = MEMBERSHIP_COLUMNS.map((column) => values.get(column) ?? '');
  if (cells.every((cell) => cell.trim() === '')) return;
  const [club, kind, start, end] = cells;
  const blankIsNull = (cell: string) => (cell.trim() === '' ? null : cell.trim());
  const checked = checkPersonRecord({
    memberships: [
      { club, kind: blankIsNull(kind), start_date: blankIsNull(start), end_date: blankIsNull(end) },
    ],
  });
  if ('errors' in checked) {
    for (const error of checked.errors) group.problems.push(atColumn(row, error, []));
    return;
  }
  group.memberships.push(...(checked.record.memberships ?? []));
}

/** A JSON record's message ("memberships[0].start_date must be ...") as a cell's ("row 5, column start_date: must be ..."). */
function atColumn(row: number, message: string, contactColumns: ContactKind[]): string {
  const membership = /^memberships\[0\]\.(\w+) (.*)$/s.exec(message);
  if (membership !== null) return `row ${row}, column ${membership[1]}: ${membership[2]}`;
  const contact = /^contacts\[(\d+)\]\.value (.*)$/s.exec(message);
  if (contact !== null) return `row ${row}, column ${contactColumns[Number(contact[1])]}: ${contact[2]}`;
  const field = /^(\w+) (.*)$/s.exec(message);
  if (field !== null) return `row ${row}, column ${field[1]}: ${field[2]}`;
  return `row ${row}: ${message}`;
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
