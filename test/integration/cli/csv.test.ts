import { readFileSync, statSync } from 'node:fs';
import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { exportRecords, snapshot } from '../sync/sync-support';
import { cli } from './cli-harness';
import { tempFile, tempPath } from './import-files';

const HEADER =
  'id,member_number,first_name,last_name,email,phone,address,chat_id,planner_id,club,kind,start_date,end_date';

/** SPEC §9: spreadsheets in and out. */
describe.each(testDatabases)('CSV import and export on $name', (target) => {
  let t: TestApp;
  let reader: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    reader = await t.tokenWith(['read']);
  });
  afterAll(() => t.close());

  const importCsv = (text: string, ...options: string[]) =>
    cli(t.database, ['import', tempFile(text, 'roster.csv'), ...options]);
  const byNumber = async (number: string) =>
    (
      await request(t.app)
        .get('/people')
        .query({ member_number: number })
        .set('Authorization', `Bearer ${reader}`)
    ).body[0];

  it('reads ; or , with or without a byte order mark, one row per membership, quoted line breaks included', async () => {
    const [a, b] = [uniqueName('A'), uniqueName('B')];
    const text =
      '\ufeffmember_number;first_name;last_name;email;address;club;kind;start_date;end_date\r\n' +
      `${a};Ada;Lovelace;ada.${a}@example.org;"1 Orion Road\r\nNorthfield";North;full;2020-01-01;2020-12-31\r\n` +
      `${b};Grace;Hopper;;;;;;\r\n` +
      `${a};Ada;Lovelace;ada.${a}@example.org;"1 Orion Road\r\nNorthfield";South;;2021-01-01;\r\n`;

    const result = await importCsv(text);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/: 2 added, 0 updated, 0 unchanged, 0 erased/);
    const ada = await byNumber(a);
    expect(ada).toMatchObject({
      first_name: 'Ada',
      contacts: [
        { kind: 'email', value: `ada.${a}@example.org`, label: null },
        { kind: 'address', value: '1 Orion Road\r\nNorthfield', label: null },
      ],
    });
    expect(
      ada.memberships.map((m: { club: { name: string }; kind: string | null; end_date: string | null }) => [
        m.club.name,
        m.kind,
        m.end_date,
      ]),
    ).toEqual([
      ['North', 'full', '2020-12-31'],
      ['South', null, null],
    ]);
    expect(await byNumber(b)).toMatchObject({ first_name: 'Grace', contacts: [], memberships: [] });
  });

  it('exports a spreadsheet that imports again changing nothing', async () => {
    const number = uniqueName('R');
    await cli(t.database, [
      'import',
      tempFile([
        {
          member_number: number,
          first_name: 'Zoë',
          last_name: 'O\'Brien, "Jr"',
          chat_id: uniqueName('c'),
          planner_id: 'p-1',
          contacts: [
            { kind: 'email', value: `z.${number}@example.org`, label: 'home' },
            { kind: 'email', value: `second.${number}@example.org`, label: null },
            { kind: 'phone', value: '+44 7700 900123', label: 'mobile' },
            { kind: 'address', value: '2 Vega Lane\nSouthfield', label: null },
          ],
          memberships: [
            { club: 'North', kind: 'full', start_date: '2020-01-01', end_date: '2020-12-31' },
            { club: 'North', kind: 'full', start_date: '2021-01-01', end_date: null },
          ],
        },
        { first_name: 'Without', last_name: uniqueName('Memberships') },
      ]),
    ]);
    await t.createAccount({ role: 'admin' });
    const path = tempPath('members.csv');

    expect((await cli(t.database, ['export', '--format', 'csv', path])).code).toBe(0);

    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith(`\ufeff${HEADER}\r\n`)).toBe(true);
    const rows = text.split('\r\n').filter((line) => line.includes(number));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(`"O'Brien, ""Jr"""`);
    expect(rows[0]).toContain(`z.${number}@example.org`);
    expect(rows[0]).not.toContain('second.');
    const before = await snapshot(t.database);

    const again = await cli(t.database, ['import', path]);

    expect(again.stdout).toMatch(/: 0 added, 0 updated, \d+ unchanged, 0 erased/);
    expect(await snapshot(t.database)).toEqual(before);
    // No admin is in the spreadsheet.
    const admins = await t.database.dataSource.query("SELECT id FROM people WHERE role = 'admin'");
    const ids = text
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(',')[0]);
    for (const { id } of admins) expect(ids).not.toContain(String(id));
  });

  it('keeps the columns left out, and sets only the first contact of a kind', async () => {
    const number = uniqueName('F');
    await cli(t.database, [
      'import',
      tempFile([
        {
          member_number: number,
          first_name: 'First',
          last_name: 'Contact',
          chat_id: uniqueName('c'),
          contacts: [
            { kind: 'email', value: `one.${number}@example.org`, label: 'home' },
            { kind: 'email', value: `two.${number}@example.org`, label: 'work' },
            { kind: 'phone', value: '+44 1', label: null },
          ],
          memberships: [{ club: 'North', kind: 'full', start_date: '2020-01-01', end_date: null }],
        },
      ]),
    ]);
    const before = await byNumber(number);

    const result = await importCsv(
      `member_number,last_name,email,phone,address\n${number},Renamed,new.${number}@example.org,,1 New Street\n`,
    );

    expect(result.stdout).toMatch(/: 0 added, 1 updated, 0 unchanged/);
    const after = await byNumber(number);
    expect(after).toMatchObject({
      first_name: 'First',
      last_name: 'Renamed',
      chat_id: before.chat_id,
      memberships: before.memberships,
    });
    expect(after.contacts).toEqual([
      { ...before.contacts[0], value: `new.${number}@example.org` },
      before.contacts[1],
      { id: expect.any(Number), kind: 'address', value: '1 New Street', label: null },
    ]);
  });

  it('tells CSV from JSON by the content when the file name does not say', async () => {
    const [a, b] = [uniqueName('S'), uniqueName('S')];
    const csv = await cli(t.database, [
      'import',
      tempFile(`\ufeffmember_number;first_name;last_name\n${a};Sniffed;Csv\n`, 'roster.txt'),
    ]);
    expect(csv.stdout).toMatch(/: 1 added/);
    const json = await cli(t.database, [
      'import',
      tempFile(` [{"member_number": "${b}", "first_name": "Sniffed", "last_name": "Json"}]`, 'roster'),
    ]);
    expect(json.stdout).toMatch(/: 1 added/);
    expect((await byNumber(a)).last_name).toBe('Csv');
    expect((await byNumber(b)).last_name).toBe('Json');
  });

  it('merges the rows of one person wherever they are in the sheet', async () => {
    const [a, b] = [uniqueName('M'), uniqueName('M')];
    const result = await importCsv(
      'member_number,first_name,last_name,club,kind,start_date,end_date\n' +
        `${a},Ann,One,North,,2020-01-01,\n${b},Ben,Two,North,,2020-01-01,\n${a},Ann,One,South,,2022-01-01,\n`,
    );
    expect(result.stdout).toMatch(/: 2 added/);
    expect((await byNumber(a)).memberships).toHaveLength(2);
  });

  describe('refuses, writing nothing, naming the row and the column', () => {
    async function refused(text: string): Promise<string> {
      const before = await snapshot(t.database);
      const result = await importCsv(text);
      expect(result.code).toBe(1);
      expect(await snapshot(t.database)).toEqual(before);
      return result.stderr;
    }

    it.each(['standing', 'grace_until', 'status', 'good_standing_until', 'current'])(
      'a column the directory computes (%s), named as such',
      async (column) => {
        const stderr = await refused(`first_name,last_name,${column}\nA,B,x\n`);
        expect(stderr).toContain(
          `row 1: column "${column}" is computed by the directory from the dates (and GRACE_DAYS), never imported: leave it out`,
        );
      },
    );

    it('an unknown column, and membership columns that do not come together', async () => {
      const stderr = await refused('first_name,last_name,nickname,club,start_date\nA,B,x,North,2020-01-01\n');
      expect(stderr).toContain('row 1: unknown column "nickname"');
      expect(stderr).toContain('add kind, end_date');
    });

    it('a date not written YYYY-MM-DD', async () => {
      expect(
        await refused('first_name,last_name,club,kind,start_date,end_date\nA,B,North,,01/02/2020,\n'),
      ).toContain('row 2, column start_date: must be a calendar date written YYYY-MM-DD');
    });

    it("a person's rows that disagree", async () => {
      const n = uniqueName('D');
      expect(
        await refused(
          `member_number,first_name,last_name,club,kind,start_date,end_date\n${n},A,B,North,,2020-01-01,\n${n},A,C,South,,2021-01-01,\n`,
        ),
      ).toContain(
        `row 3, column last_name: differs from row 2, another row of the same person (member_number ${n})`,
      );
    });

    it('a row naming an admin', async () => {
      const admin = await t.createAccount({ role: 'admin' });
      expect(await refused(`id,last_name\n${admin.personId},Changed\n`)).toContain(
        `row 2: person ${admin.personId} is an admin; an import does not change admins`,
      );
    });

    it('a quote inside a cell that is not quoted, naming no cell content', async () => {
      const stderr = await refused('first_name,last_name\r\nAda,Lovelace\r\nAnn"e,Hidden\r\n');
      expect(stderr).toContain(
        'is not valid CSV: row 3, column first_name: a quote inside a cell must be doubled ("") and the cell quoted',
      );
      expect(stderr).not.toContain('Ann');
    });

    it('a row with more cells than the header, and an unclosed quote', async () => {
      expect(await refused('first_name,last_name\nA,B,C\n')).toMatch(
        /is not valid CSV: row 2: it has not as many cells as the header has columns/,
      );
      expect(await refused('first_name,last_name\nA,"B\n')).toMatch(
        /is not valid CSV: row 2, column last_name: a quoted cell is never closed/,
      );
    });
  });

  it('writes one row per current member for a mail merge', async () => {
    const [current, ended] = [uniqueName('C'), uniqueName('E')];
    await cli(t.database, [
      'import',
      tempFile([
        {
          member_number: current,
          first_name: 'Now',
          last_name: 'Member',
          contacts: [{ kind: 'email', value: `now.${current}@example.org`, label: null }],
          memberships: [
            { club: 'Old', kind: null, start_date: '2000-01-01', end_date: '2001-01-01' },
            { club: 'North', kind: 'full', start_date: '2020-01-01', end_date: '2999-12-31' },
          ],
        },
        {
          member_number: ended,
          first_name: 'Past',
          last_name: 'Member',
          memberships: [{ club: 'North', kind: null, start_date: '2000-01-01', end_date: '2001-01-01' }],
        },
      ]),
    ]);

    const result = await cli(t.database, ['export', '--format', 'csv', '--current']);

    const lines = result.stdout.split('\r\n');
    expect(lines[0]).toBe(
      '\ufefffirst_name,last_name,member_number,email,phone,address,club,end_date,standing,grace_until',
    );
    expect(lines).toContain(`Now,Member,${current},now.${current}@example.org,,,North,2999-12-31,current,`);
    expect(result.stdout).not.toContain(ended);
    // With a grace: grace_until of the row's membership (the current one that ends last).
    const graced = await cli(t.database, ['export', '--format', 'csv', '--current'], {
      env: { GRACE_DAYS: '30' },
    });
    expect(graced.stdout.split('\r\n')).toContain(
      `Now,Member,${current},now.${current}@example.org,,,North,2999-12-31,current,3000-01-30`,
    );
    // The re-importable export has no computed column.
    const full = await cli(t.database, ['export', '--format', 'csv']);
    expect(full.stdout.split('\r\n')[0]).not.toMatch(/standing|grace_until/);
    expect((await cli(t.database, ['export', '--current'])).stderr).toMatch(/--current .* --format csv/);
  });

  it('imports the people an export lists, all unchanged, when their JSON export is read back too', async () => {
    const records = await exportRecords(t.database);
    const result = await cli(t.database, ['import', tempFile(records)]);
    expect(result.stdout).toMatch(new RegExp(`: 0 added, 0 updated, ${records.length} unchanged`));
  });
});
