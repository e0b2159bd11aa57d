import ExcelJS from 'exceljs';
import request from 'supertest';
import { XLSX_MEDIA_TYPE } from '../../../src/person-file/xlsx-people-writer';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { readSheet, sheetFile, zeroPaddedNumber } from '../../support/xlsx-sheets';
import { snapshot } from '../sync/sync-support';

/** supertest's answer body as bytes, whatever its type. */
function bytes(res: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

/** SPEC §9, "Spreadsheet files": GET /export?format=xlsx and POST /imports with an XLSX body. */
describe.each(testDatabases)('XLSX over HTTP on $name', (target) => {
  let t: TestApp;
  let manager: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    manager = await t.tokenWith(['read', 'manage']);
  });
  afterAll(() => t.close());

  const post = (query: string) =>
    request(t.app)
      .post(`/imports${query}`)
      .set('Authorization', `Bearer ${manager}`)
      .set('Content-Type', XLSX_MEDIA_TYPE);

  async function addMember(): Promise<string> {
    const number = zeroPaddedNumber();
    const res = await request(t.app)
      .post('/imports')
      .set('Authorization', `Bearer ${manager}`)
      .send([
        {
          member_number: number,
          first_name: 'Ann',
          last_name: uniqueName('H'),
          contacts: [{ kind: 'phone', value: '+441632960000', label: null }],
          memberships: [{ club: 'North', kind: 'full', start_date: '2023-05-01', end_date: '2024-04-30' }],
        },
      ]);
    expect(res.status).toBe(200);
    return number;
  }

  it('exports a workbook of text and date cells that imports back with nothing to change', async () => {
    const number = await addMember();

    const res = await request(t.app)
      .get('/export?format=xlsx')
      .set('Authorization', `Bearer ${manager}`)
      .buffer(true)
      .parse(bytes);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(XLSX_MEDIA_TYPE);
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="members-\d{4}-\d{2}-\d{2}\.xlsx"$/,
    );
    const rows = await readSheet(res.body);
    const row = rows.find((cells) => cells[1].value === number);
    expect(row?.[1].type).toBe(ExcelJS.ValueType.String);
    expect(row?.[5]).toMatchObject({ type: ExcelJS.ValueType.String, value: '+441632960000' });
    expect(row?.[11]).toMatchObject({ type: ExcelJS.ValueType.Date, value: new Date('2023-05-01Z') });
    expect(row?.[12]).toMatchObject({ type: ExcelJS.ValueType.Date, value: new Date('2024-04-30Z') });
    const before = await snapshot(t.database);

    const dryRun = await post('?dry_run=true').send(res.body);

    expect(dryRun.status).toBe(200);
    expect(dryRun.body.summary).toMatchObject({ added: 0, updated: 0, erased: 0 });
    expect(dryRun.body.summary.unchanged).toBeGreaterThan(0);
    expect(dryRun.body.changes).toEqual([]);
    expect(await snapshot(t.database)).toEqual(before);
  });

  it('imports a workbook, naming a bad cell by its row and column', async () => {
    const body = await sheetFile([
      ['first_name', 'last_name', 'club', 'kind', 'start_date', 'end_date'],
      ['Ada', uniqueName('B'), 'North', null, new Date('2024-01-01Z'), '16.12.2020'],
    ]);

    const res = await post('?dry_run=true').send(body);

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['row 2, column end_date: must be a calendar date written YYYY-MM-DD']);
  });

  it('answers 400 with one clear message, never 500, for bytes that are not a workbook', async () => {
    const good = await sheetFile([
      ['first_name', 'last_name'],
      ['Ada', 'Byron'],
    ]);
    for (const body of [
      Buffer.from('first_name,last_name\nAda,Byron\n'),
      Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(200, 7)]),
      good.subarray(0, Math.floor(good.length / 2)),
      Buffer.alloc(0),
    ]) {
      const res = await post('?dry_run=true').send(body);

      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0]).toMatch(/^the request body is not an XLSX spreadsheet/);
    }
  });

  it('exports the mail merge list as XLSX with current=true', async () => {
    const number = await addMember();
    await t.database.dataSource.query(
      "UPDATE memberships SET end_date = '2999-01-01' WHERE person_id = (SELECT id FROM people WHERE member_number = $1)",
      [number],
    );

    const res = await request(t.app)
      .get('/export?format=xlsx&current=true')
      .set('Authorization', `Bearer ${manager}`)
      .buffer(true)
      .parse(bytes);

    expect(res.status).toBe(200);
    const rows = await readSheet(res.body);
    expect(rows[0].map((c) => c.value)).toEqual([
      'first_name',
      'last_name',
      'member_number',
      'email',
      'phone',
      'address',
      'club',
      'end_date',
      'standing',
      'grace_until',
    ]);
    const row = rows.find((cells) => cells[2].value === number);
    expect(row?.[7]).toMatchObject({ type: ExcelJS.ValueType.Date, value: new Date('2999-01-01Z') });
  });
});
