import type { RefusedRecordNames } from '../application/people/dropped-zeros';
import type { IncomingPerson, IncomingRecord } from '../application/people/import-people';
import type { NewMembership } from '../application/ports/person-repository';
import type { ContactKind } from '../domain/contact';
import { InvalidInput } from '../domain/errors';
import { MAX_ID } from '../domain/ids';
import { COMPUTED_FIELDS, checkPersonRecord, computedFieldProblem } from './person-file-record';
import { RECORD_MAX_BYTES, UnreadableInput } from './read-json-array';

/** The columns of a spreadsheet of people (SPEC §9), in the order the export writes them. */
export const SHEET_COLUMNS = [
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

export type SheetColumn = (typeof SHEET_COLUMNS)[number];

const MEMBERSHIP_COLUMNS: SheetColumn[] = ['club', 'kind', 'start_date', 'end_date'];
const CONTACT_COLUMNS: ContactKind[] = ['email', 'phone', 'address'];
/** The columns that say who a person is: the same on every row of theirs. */
const PERSON_COLUMNS = SHEET_COLUMNS.filter((c) => !MEMBERSHIP_COLUMNS.includes(c));

/** One person's rows as they are gathered: the first row's person cells, and their memberships. */
interface Group {
  row: number;
  key: string | null;
  cells: Map<SheetColumn, string>;
  record: IncomingPerson | null;
  memberships: NewMembership[];
  problems: string[];
  size: number;
}

/**

/** One row of a sheet as its reader (CSV or XLSX) hands it on: every cell as text. */
export interface SheetRow {
  /** The row's number as the spreadsheet shows it (the header is row 1). */
  number: number;
  cells: string[];
  /** What the reader already found wrong in the row's cells (an XLSX error cell, say). */
  problems?: string[];
}

/**
 * The people of a spreadsheet (SPEC §9), whatever file it came in: the one reading of the rows
 * once their cells are text, shared by the CSV and XLSX readers so that their rules cannot drift.
 * The first row names the columns; a column the header leaves out is kept (SPEC §6). One row per
 * membership: rows with the same member_number (or, without one, the same id) are one person,
 * wherever they are in the sheet, whose other columns must agree; a person without memberships is
 * one row with those cells empty. `email`, `phone` and `address` are a person's first contact of
 * that kind. Every row says a member: a row cannot name an admin. A bad cell is named by its row
 * and column.
 *
 * A person's rows may be anywhere in the sheet, so people are handed on once the sheet has been
 * read, in the order of their first row: a spreadsheet is held whole by its program too (a million
 * rows at most), and each person's rows are checked as they come.
 */
export async function* peopleFromRows(
  name: string,
  rows: AsyncIterable<SheetRow>,
): AsyncIterable<IncomingRecord> {
  let columns: SheetColumn[] | null = null;
  const groups: Group[] = [];
  const byKey = new Map<string, Group>();
  for await (const { number: row, cells, problems } of rows) {
    if (columns === null) {
      columns = headerColumns(cells, row);
      continue;
    }
    if (cells.every((cell) => cell.trim() === '') && problems === undefined) continue;
    const values = new Map<SheetColumn, string>(
      (columns as SheetColumn[]).map((column, i) => [column, cells[i] ?? '']),
    );
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
    if (problems !== undefined) group.problems.push(...problems);
    group.size += cells.reduce((sum, cell) => sum + cell.length + 1, 0);
    if (group.size > RECORD_MAX_BYTES && !group.problems.some((p) => p.endsWith('MiB'))) {
      group.problems.push(`row ${group.row}: the rows of this person are larger than 1 MiB`);
    }
    addMembership(group, row, values);
  }
  if (columns === null) throw new UnreadableInput(`${name} is empty: it needs a header row`);
  for (const group of groups) {
    const where = `row ${group.row}`;
    if (group.problems.length > 0 || group.record === null) {
      const names = namesOf(group.cells);
      yield { index: group.row, where, problems: group.problems, ...(names === null ? {} : { names }) };
      continue;
    }
    const person = group.record;
    if (columns.includes('club')) person.memberships = group.memberships;
    yield { index: group.row, where, person };
  }
}

function headerColumns(cells: string[], row: number): SheetColumn[] {
  const names = cells.map((cell) => cell.trim());
  const problems: string[] = [];
  for (const name of names) {
    if (!(SHEET_COLUMNS as readonly string[]).includes(name)) {
      problems.push(
        name === ''
          ? `row ${row}: a column has no name`
          : COMPUTED_FIELDS.includes(name)
            ? `row ${row}: ${computedFieldProblem('column', name)}`
            : `row ${row}: unknown column ${JSON.stringify(name)} (the columns are ${SHEET_COLUMNS.join(', ')})`,
      );
    } else if (
      names.indexOf(name) !== names.lastIndexOf(name) &&
      !problems.some((p) => p.includes(`"${name}" twice`))
    ) {
      problems.push(`row ${row}: the column "${name}" twice`);
    }
  }
  const present = MEMBERSHIP_COLUMNS.filter((c) => names.includes(c));
  if (present.length > 0 && present.length < MEMBERSHIP_COLUMNS.length) {
    const missing = MEMBERSHIP_COLUMNS.filter((c) => !names.includes(c));
    problems.push(
      `row ${row}: the membership columns ${MEMBERSHIP_COLUMNS.join(', ')} come together (a person's rows are their whole list of memberships): add ${missing.join(', ')}`,
    );
  }
  // Reported all at once, like a file's other problems.
  if (problems.length > 0) throw new InvalidInput(problems);
  return names as SheetColumn[];
}

/** Rows with the same member_number are one person; without one, rows with the same id. */
function keyOf(values: Map<SheetColumn, string>): string | null {
  const number = values.get('member_number')?.trim() ?? '';
  if (number !== '') return `member_number ${values.get('member_number')}`;
  const id = values.get('id')?.trim() ?? '';
  return id === '' ? null : `id ${id}`;
}

/** Whom a refused row names, as far as its cells say: its member number, and its id if readable. */
function namesOf(values: Map<SheetColumn, string>): RefusedRecordNames | null {
  const memberNumber = values.get('member_number') ?? '';
  if (memberNumber.trim() === '') return null;
  const id = values.get('id')?.trim() ?? '';
  return { memberNumber, id: /^[0-9]{1,10}$/.test(id) && Number(id) <= MAX_ID ? Number(id) : null };
}

function describeKey(key: string | null): string {
  return key ?? 'no member_number or id';
}

function newGroup(row: number, key: string | null, values: Map<SheetColumn, string>): Group {
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

function addMembership(group: Group, row: number, values: Map<SheetColumn, string>): void {
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
