import type { Writable } from 'node:stream';
import { ExportPeople } from '../../application/people/export-people';
import { UsageError } from '../cli-errors';
import { defineCommand } from '../command';
import { type PeopleProducer, writeCsvPeople, writeJsonPeople } from '../../person-file/people-writers';
import { writeXlsxPeople } from '../../person-file/xlsx-people-writer';
import { writePrivateFile } from '../private-file';
import { printLine } from '../write-text';

export const exportCommand = defineCommand({
  path: ['export'],
  summary: 'export the members to a JSON, CSV or XLSX file (or standard output)',
  usage: '[FILE] [--format json|csv|xlsx] [--current]',
  description: [
    'Writes every member as a JSON array in the format `import` reads, one person a line, to',
    'FILE or to standard output, with their `id` and `member_number`: edit it and import it again',
    'to bring the directory up to date (importing it unchanged changes nothing).',
    'With --format csv, a spreadsheet `import FILE.csv` reads back: the columns',
    '  id, member_number, first_name, last_name, email, phone, address, chat_id, planner_id,',
    '  club, kind, start_date, end_date',
    'one row per membership (a person without one is one row with those cells empty); email,',
    "phone and address are the person's first contact of that kind. UTF-8 with a byte order mark,",
    'comma-separated, lines ending CR LF (RFC 4180).',
    'With --format xlsx, the same columns and rows as an Excel workbook of one sheet, which',
    '`import FILE.xlsx` reads back: every cell is text (member numbers keep their leading zeros,',
    'phones their +; no formulas), except start_date and end_date, which are dates.',
    'With --current (CSV or XLSX), one row per current member for a mail merge: first_name,',
    'last_name, member_number, email, phone, address and the club and end_date of their current',
    'membership.',
    "Another directory takes the people without their ids (ids name this directory's people).",
    "FILE holds members' contacts: it is made readable by its owner only (0600).",
    'Admins, erased people, accounts and keys are never exported.',
    'Give a FILE when running through npm: npm writes its own header lines to standard output',
    '(or run the tool without npm: npx membership-directory export > FILE).',
  ].join('\n'),
  options: {
    format: { type: 'string', value: 'FORMAT', description: 'json (the default), csv or xlsx' },
    current: {
      type: 'boolean',
      description: 'CSV or XLSX only: one row per current member, for a mail merge',
    },
  },
  positionals: [{ name: 'FILE', optional: true }],
  async run({ name, io, values, positionals: [file], container }) {
    const format = values.format ?? 'json';
    if (format !== 'json' && format !== 'csv' && format !== 'xlsx') {
      throw new UsageError(`--format takes json, csv or xlsx, not ${JSON.stringify(format)}`, name);
    }
    const current = values.current === true;
    if (current && format === 'json') {
      throw new UsageError('--current is for a mail merge: give it with --format csv or xlsx', name);
    }
    const exportPeople = container.get(ExportPeople);
    const produce: PeopleProducer = (write) => exportPeople.execute({ write, current });
    const writeTo = (out: Writable) =>
      format === 'csv'
        ? writeCsvPeople(out, produce, { current })
        : format === 'xlsx'
          ? writeXlsxPeople(out, produce, { current })
          : writeJsonPeople(out, produce);
    if (file === undefined) {
      await writeTo(io.stdout);
      return;
    }
    // Private: every member's contacts are in it (as people export-data's file is).
    const people = await writePrivateFile(file, writeTo);
    printLine(io.stdout, `exported ${people} people to ${file}`);
  },
});
