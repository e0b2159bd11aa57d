import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { outsideProgram } from '../../support/outside-program';
import { snapshot } from '../sync/sync-support';
import { cli } from './cli-harness';
import { tempFile, tempPath } from './import-files';

const ssconvert = outsideProgram('ssconvert', "apt-get install gnumeric (Gnumeric's ssconvert)");

/** Gnumeric converting a file, as the secretary's spreadsheet program opens and saves it. */
function convert(from: string, to: string, ...options: string[]): void {
  const run = spawnSync(ssconvert.path(), [...options, from, to], { encoding: 'utf8' });
  expect(run.status).toBe(0);
}

/** People a spreadsheet keeps as they are: line breaks as LF, and every awkward character but those. */
function people() {
  const [a, b] = [uniqueName('G'), uniqueName('G')];
  return [
    {
      member_number: a,
      first_name: 'Zoë',
      last_name: 'O\'Brien, "Jr"',
      chat_id: uniqueName('c'),
      planner_id: 'p;1',
      contacts: [
        { kind: 'email', value: `zoe.${a}@example.org`, label: null },
        { kind: 'phone', value: '+44 7700 900123; ext. 4', label: null },
        { kind: 'address', value: '2 Vega Lane, "The Mews"\nSouthfield', label: null },
      ],
      memberships: [
        { club: 'North; East', kind: 'full', start_date: '2020-01-01', end_date: '2020-12-31' },
        { club: 'North; East', kind: null, start_date: '2021-01-01', end_date: null },
      ],
    },
    {
      member_number: b,
      first_name: 'Ann"e',
      last_name: 'Ångström',
      contacts: [{ kind: 'address', value: '1 Orion Road\nNorthfield\nUK', label: null }],
      memberships: [],
    },
  ];
}

/** SPEC §9: the export through a real spreadsheet program and back. */
describe.each(testDatabases)('a spreadsheet round trip on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
  });
  afterAll(() => t.close());

  /** The export, opened in Gnumeric and kept as XLSX: its path. */
  async function exportedToXlsx(): Promise<{ numbers: string[]; xlsx: string }> {
    const added = people();
    expect((await cli(t.database, ['import', tempFile(added)])).code).toBe(0);
    const csv = tempPath('members.csv');
    expect((await cli(t.database, ['export', '--format', 'csv', csv])).code).toBe(0);
    const xlsx = tempPath('members.xlsx');
    convert(csv, xlsx);
    return { numbers: added.map((p) => p.member_number), xlsx };
  }

  ssconvert.it(
    'CSV to XLSX and back to CSV (dates as shown), a dry-run import finds nothing to change',
    async () => {
      const { xlsx } = await exportedToXlsx();
      const back = tempPath('members-again.csv');
      // Dates saved as the sheet shows them (YYYY-MM-DD), as spreadsheet programs save CSV by default.
      convert(xlsx, back, '--export-type=Gnumeric_stf:stf_assistant', '-O', 'separator=, format=preserve');

      const result = await cli(t.database, ['import', back, '--dry-run']);

      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/: 0 to add, 0 to update, \d+ unchanged, 0 to erase/);
    },
  );

  ssconvert.it(
    'dates the spreadsheet rewrote (2020/01/01) are refused naming the row and the column',
    async () => {
      const { numbers, xlsx } = await exportedToXlsx();
      const back = tempPath('members-again.csv');
      convert(xlsx, back, '--export-type=Gnumeric_stf:stf_csv');
      const rows: string[][] = parse(readFileSync(back, 'utf8'));
      const row = rows.findIndex((cells) => cells[1] === numbers[0]) + 1;
      expect(rows[row - 1]).toContain('2020/01/01');
      const before = await snapshot(t.database);

      const result = await cli(t.database, ['import', back, '--dry-run']);

      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `row ${row}, column start_date: must be a calendar date written YYYY-MM-DD`,
      );
      expect(result.stderr).toContain(
        `row ${row}, column end_date: must be a calendar date written YYYY-MM-DD`,
      );
      expect(await snapshot(t.database)).toEqual(before);
    },
  );

  it('a dry run over HTTP lists every date in another form together, each by its row and column', async () => {
    const manager = await t.tokenWith(['read', 'manage']);
    const res = await request(t.app)
      .post('/imports?dry_run=true')
      .set('Authorization', `Bearer ${manager}`)
      .set('Content-Type', 'text/csv')
      .send(
        'first_name,last_name,club,kind,start_date,end_date\n' +
          'A,One,North,,2020/12/16,\nB,Two,North,,2020-01-01,16.12.2020\n',
      );

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      'row 2, column start_date: must be a calendar date written YYYY-MM-DD',
      'row 3, column end_date: must be a calendar date written YYYY-MM-DD',
    ]);
  });
});
