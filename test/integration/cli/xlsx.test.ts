import { readFileSync, writeFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { SHEET_COLUMNS } from '../../../src/person-file/sheet-rows';
import { CURRENT_CSV_COLUMNS } from '../../../src/person-file/people-writers';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { readSheet, sheetFile, zeroPaddedNumber } from '../../support/xlsx-sheets';
import { snapshot } from '../sync/sync-support';
import { cli } from './cli-harness';
import { tempFile, tempPath } from './import-files';

/** A member whose number has leading zeros and whose phone starts with `+`: what a spreadsheet mangles. */
function fragileMember() {
  return {
    member_number: zeroPaddedNumber(),
    first_name: 'Zoë',
    last_name: uniqueName('X'),
    chat_id: uniqueName('c'),
    contacts: [
      { kind: 'phone', value: '+447700900123', label: null },
      { kind: 'email', value: `${uniqueName('z')}@example.org`, label: null },
    ],
    memberships: [
      { club: 'North', kind: 'full', start_date: '2020-01-01', end_date: '2020-12-31' },
      { club: 'North', kind: null, start_date: '2021-01-01', end_date: null },
    ],
  };
}

/** SPEC §9: `export --format xlsx` and `import FILE.xlsx`. */
describe.each(testDatabases)('XLSX files on the command line on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
  });
  afterAll(() => t.close());

  async function withMember() {
    const member = fragileMember();
    expect((await cli(t.database, ['import', tempFile([member])])).code).toBe(0);
    return member;
  }

  it('exports text cells (leading zeros, +) and date cells, which a dry-run import finds unchanged', async () => {
    const member = await withMember();
    const xlsx = tempPath('members.xlsx');
    expect((await cli(t.database, ['export', '--format', 'xlsx', xlsx])).code).toBe(0);

    const rows = await readSheet(readFileSync(xlsx));
    expect(rows[0].map((c) => c.value)).toEqual([...SHEET_COLUMNS]);
    const column = (name: string) => SHEET_COLUMNS.indexOf(name as (typeof SHEET_COLUMNS)[number]);
    const mine = rows.filter((cells) => cells[column('member_number')].value === member.member_number);
    expect(mine).toHaveLength(2);
    const [first] = mine;
    expect(first[column('member_number')].type).toBe(ExcelJS.ValueType.String);
    expect(first[column('id')].type).toBe(ExcelJS.ValueType.String);
    expect(first[column('phone')]).toMatchObject({ type: ExcelJS.ValueType.String, value: '+447700900123' });
    expect(first[column('start_date')]).toMatchObject({
      type: ExcelJS.ValueType.Date,
      value: new Date('2020-01-01T00:00:00Z'),
    });
    expect(first[column('end_date')].value).toEqual(new Date('2020-12-31T00:00:00Z'));
    expect(mine[1][column('end_date')].type).toBe(ExcelJS.ValueType.Null);
    const before = await snapshot(t.database);

    const result = await cli(t.database, ['import', xlsx, '--dry-run']);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/: 0 to add, 0 to update, \d+ unchanged, 0 to erase/);
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('exports the mail merge list as XLSX with --current', async () => {
    const member = await withMember();
    const xlsx = tempPath('current.xlsx');
    expect((await cli(t.database, ['export', '--format', 'xlsx', '--current', xlsx])).code).toBe(0);

    const rows = await readSheet(readFileSync(xlsx));
    expect(rows[0].map((c) => c.value)).toEqual([...CURRENT_CSV_COLUMNS]);
    const mine = rows.find((cells) => cells[2].value === member.member_number);
    expect(mine?.map((c) => c.value)).toEqual([
      'Zoë',
      member.last_name,
      member.member_number,
      member.contacts[1].value,
      '+447700900123',
      null,
      'North',
      null,
      'current',
      null,
    ]);
  });

  it('imports a workbook: date cells are that day, and the people are added', async () => {
    const number = zeroPaddedNumber();
    const file = tempPath('new.xlsx');
    writeFileSync(
      file,
      await sheetFile([
        ['member_number', 'first_name', 'last_name', 'phone', 'club', 'kind', 'start_date', 'end_date'],
        [number, 'Ada', 'Byron', '+44 20 7946 0000', 'North', 'full', new Date('2024-03-01Z'), null],
      ]),
    );

    expect((await cli(t.database, ['import', file])).code).toBe(0);

    const found = await cli(t.database, ['people', 'find', number]);
    expect(found.stdout).toContain('Ada');
    const [person] = await t.database.dataSource.query(
      `SELECT m.start_date::text AS start, c.value AS phone FROM people p
         JOIN memberships m ON m.person_id = p.id JOIN contacts c ON c.person_id = p.id
        WHERE p.member_number = $1`,
      [number],
    );
    expect(person).toEqual({ start: '2024-03-01', phone: '+44 20 7946 0000' });
  });

  it('refuses a file that is not a workbook in one line', async () => {
    const file = tempFile('PK\u0003\u0004 not really a zip', 'broken.xlsx');

    const result = await cli(t.database, ['import', file, '--dry-run']);

    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `error: ${file} is not an XLSX spreadsheet that can be read; save it as an Excel workbook (.xlsx)`,
    );
  });
});
