import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { outsideProgram } from '../../support/outside-program';
import { sheetFile, zeroPaddedNumber } from '../../support/xlsx-sheets';
import { snapshot } from '../sync/sync-support';
import { cli } from './cli-harness';
import { tempFile, tempPath } from './import-files';

const ssconvert = outsideProgram('ssconvert', "apt-get install gnumeric (Gnumeric's ssconvert)");

/** Gnumeric converting a file, as the secretary's spreadsheet program opens and saves it. */
function convert(from: string, to: string, ...options: string[]): void {
  const run = spawnSync(ssconvert.path(), [...options, from, to], { encoding: 'utf8' });
  expect(run.status).toBe(0);
}

/** A member whose number has leading zeros, with memberships (dates) unless told otherwise. */
function fragileMember(withMemberships = true) {
  return {
    member_number: zeroPaddedNumber(),
    first_name: 'Zoë',
    last_name: uniqueName('X'),
    contacts: [{ kind: 'phone', value: '+447700900123', label: null }],
    memberships: withMemberships
      ? [{ club: 'North', kind: 'full', start_date: '2020-01-01', end_date: '2020-12-31' }]
      : [],
  };
}

/** SPEC §9: a member number that lost its leading zeros in a spreadsheet is refused, never imported. */
describe.each(testDatabases)('member numbers without their leading zeros on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
  });
  afterAll(() => t.close());

  async function withMember(withMemberships = true) {
    const member = fragileMember(withMemberships);
    expect((await cli(t.database, ['import', tempFile([member])])).code).toBe(0);
    return member;
  }

  it('a CSV row naming the person by id is refused, not renumbering them', async () => {
    const member = await withMember();
    const [{ id }] = await t.database.dataSource.query('SELECT id FROM people WHERE member_number = $1', [
      member.member_number,
    ]);
    const file = tempFile(`id,member_number\n${id},${Number(member.member_number)}\n`, 'roster.csv');
    const before = await snapshot(t.database);

    const result = await cli(t.database, ['import', file]);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `row 2: member_number "${Number(member.member_number)}" differs from "${member.member_number}", person ${id}'s, only by leading zeros`,
    );
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('a CSV row without an id is refused, not added as someone new; over HTTP too', async () => {
    const member = await withMember();
    const csv = `member_number,first_name,last_name\n${Number(member.member_number)},Zoë,${member.last_name}\n`;
    const manager = await t.tokenWith(['read', 'manage']);
    const before = await snapshot(t.database);

    const result = await cli(t.database, ['import', tempFile(csv, 'roster.csv'), '--dry-run']);
    const res = await request(t.app)
      .post('/imports')
      .set('Authorization', `Bearer ${manager}`)
      .set('Content-Type', 'text/csv')
      .send(csv);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`row 2: member_number "${Number(member.member_number)}" differs from`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.stringMatching(/^row 2: member_number "\d+" differs from "000\d+"/),
    ]);
    // All but the key's last use, which the request records.
    const { api_keys: _used, ...after } = await snapshot(t.database);
    const { api_keys: _unused, ...was } = before;
    expect(after).toEqual(was);
  });

  it('a number that only looks alike (more zeros, other digits) is no such case', async () => {
    const member = await withMember();
    const padded = `0${member.member_number}`;
    const csv = `member_number,first_name,last_name\n${padded},New,Person\n`;

    const result = await cli(t.database, ['import', tempFile(csv, 'roster.csv'), '--dry-run']);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('1 to add');
  });

  it('refuses, together, a member number without its leading zeros and dates as text in another form', async () => {
    const member = await withMember();
    const file = tempPath('mangled.xlsx');
    writeFileSync(
      file,
      await sheetFile([
        ['member_number', 'first_name', 'last_name', 'club', 'kind', 'start_date', 'end_date'],
        [Number(member.member_number), 'Zoë', member.last_name, 'North', 'full', '2020/01/01', '31.12.2020'],
        [zeroPaddedNumber(), 'New', 'Person', 'North', null, new Date('2021-01-01Z'), '2021-12-31'],
      ]),
    );
    const before = await snapshot(t.database);

    const result = await cli(t.database, ['import', file, '--dry-run']);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('3 problems');
    expect(result.stderr).toContain('row 2, column start_date: must be a calendar date written YYYY-MM-DD');
    expect(result.stderr).toContain('row 2, column end_date: must be a calendar date written YYYY-MM-DD');
    expect(result.stderr).toContain(
      `row 2: member_number "${Number(member.member_number)}" differs from "${member.member_number}"`,
    );
    expect(await snapshot(t.database)).toEqual(before);
  });

  describe('through a spreadsheet program (Gnumeric)', () => {
    /**
     * The CSV export of two fresh members, opened in Gnumeric and kept as XLSX: numbers become
     * numbers. One has memberships (dates), the other none.
     */
    async function csvThroughGnumeric() {
      const member = await withMember();
      const plain = await withMember(false);
      const csv = tempPath('members.csv');
      expect((await cli(t.database, ['export', '--format', 'csv', csv])).code).toBe(0);
      const xlsx = tempPath('members.xlsx');
      convert(csv, xlsx);
      return { member, plain, xlsx };
    }

    const droppedZeros = (number: string) =>
      new RegExp(
        `row \\d+: member_number "${Number(number)}" differs from "${number}", person \\d+'s, only by leading zeros`,
      );

    ssconvert.it(
      'the workbook it saved is refused naming the rows whose leading zeros it dropped',
      async () => {
        const { member, plain, xlsx } = await csvThroughGnumeric();

        const result = await cli(t.database, ['import', xlsx, '--dry-run']);

        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(droppedZeros(member.member_number));
        expect(result.stderr).toMatch(droppedZeros(plain.member_number));
        // Its date cells are dates, and its text the text: nothing else is wrong.
        expect(result.stderr).not.toMatch(/row \d+, column/);
      },
    );

    ssconvert.it(
      'its CSV, saved again, is refused for the dropped zeros and the dates, all together',
      async () => {
        const { member, plain, xlsx } = await csvThroughGnumeric();
        const back = tempPath('members-again.csv');
        convert(xlsx, back, '--export-type=Gnumeric_stf:stf_csv');
        const rows: string[][] = parse(readFileSync(back, 'utf8'));
        const rowOf = (number: string) => rows.findIndex((cells) => cells[1] === String(Number(number))) + 1;
        expect(rowOf(member.member_number)).toBeGreaterThan(1);
        const before = await snapshot(t.database);

        const result = await cli(t.database, ['import', back, '--dry-run']);

        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `row ${rowOf(member.member_number)}, column start_date: must be a calendar date written YYYY-MM-DD`,
        );
        expect(result.stderr).toContain(
          `row ${rowOf(plain.member_number)}: member_number "${Number(plain.member_number)}" differs from "${plain.member_number}"`,
        );
        expect(await snapshot(t.database)).toEqual(before);
      },
    );
  });
});
