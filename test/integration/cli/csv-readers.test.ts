import { readFileSync } from 'node:fs';
import request from 'supertest';
import { SHEET_COLUMNS } from '../../../src/person-file/sheet-rows';
import { CURRENT_CSV_COLUMNS } from '../../../src/person-file/people-writers';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { expectWellFormed, readStrictly, readWithPython } from '../../support/csv-readers';
import { testDatabases } from '../../support/databases';
import { outsideProgram } from '../../support/outside-program';
import { cli } from './cli-harness';
import { tempFile, tempPath } from './import-files';

const python = outsideProgram('python3', 'apt-get install python3');

/** Two people whose cells hold every character RFC 4180 quotes for, and accents. */
function trickyPeople() {
  const [a, b] = [uniqueName('Q'), uniqueName('Q')];
  const club = `North, "East"; West ${a}`;
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
        { kind: 'address', value: '2 Vega Lane\nSouthfield', label: null },
      ],
      memberships: [
        { club, kind: 'full', start_date: '2020-01-01', end_date: '2020-12-31' },
        { club, kind: null, start_date: '2021-01-01', end_date: '2999-12-31' },
      ],
    },
    {
      member_number: b,
      first_name: 'Ann"e',
      last_name: 'Ångström',
      chat_id: null,
      planner_id: null,
      contacts: [{ kind: 'address', value: '1 Orion Road\r\nNorthfield;\rRear', label: null }],
      memberships: [{ club: `Café ${b}`, kind: null, start_date: '2020-01-01', end_date: null }],
    },
  ];
}

type Tricky = ReturnType<typeof trickyPeople>[number];

const contact = (person: Tricky, kind: string) => person.contacts.find((c) => c.kind === kind)?.value ?? '';

/** The rows `export --format csv` must write for a person: one per membership. */
function fullRows(person: Tricky, id: number): string[][] {
  const own = [
    String(id),
    person.member_number,
    person.first_name,
    person.last_name,
    contact(person, 'email'),
    contact(person, 'phone'),
    contact(person, 'address'),
    person.chat_id ?? '',
    person.planner_id ?? '',
  ];
  return person.memberships.map((m) => [...own, m.club, m.kind ?? '', m.start_date, m.end_date ?? '']);
}

/** The row `--current` must write: the membership current today that ends last. */
function currentRow(person: Tricky): string[] {
  const current = person.memberships[person.memberships.length - 1];
  return [
    person.first_name,
    person.last_name,
    person.member_number,
    contact(person, 'email'),
    contact(person, 'phone'),
    contact(person, 'address'),
    current.club,
    current.end_date ?? '',
    'current',
    '',
  ];
}

/** SPEC §9: every CSV the service writes, read back by strict RFC 4180 readers. */
describe.each(testDatabases)('every CSV the service writes, read strictly, on $name', (target) => {
  let t: TestApp;
  let manager: string;

  beforeAll(async () => {
    t = await createTestApp(target);
    manager = await t.tokenWith(['read', 'manage']);
  });
  afterAll(() => t.close());

  /** Imports the tricky people and answers, with their ids, the rows each layout must hold for them. */
  async function addTricky(): Promise<{ numbers: string[]; full: string[][]; current: string[][] }> {
    const people = trickyPeople();
    expect((await cli(t.database, ['import', tempFile(people)])).code).toBe(0);
    const full: string[][] = [];
    for (const person of people) {
      const [{ id }] = await t.database.dataSource.query('SELECT id FROM people WHERE member_number = $1', [
        person.member_number,
      ]);
      full.push(...fullRows(person, Number(id)));
    }
    return { numbers: people.map((p) => p.member_number), full, current: people.map(currentRow) };
  }

  const download = async (query: string): Promise<Buffer> => {
    const res = await request(t.app)
      .get(`/export?${query}`)
      .set('Authorization', `Bearer ${manager}`)
      .buffer(true)
      .parse((stream, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    return res.body;
  };

  const exportFile = async (...options: string[]): Promise<Buffer> => {
    const path = tempPath('members.csv');
    expect((await cli(t.database, ['export', '--format', 'csv', ...options, path])).code).toBe(0);
    return readFileSync(path);
  };

  const WRITERS = [
    { name: 'export --format csv', layout: 'full', write: () => exportFile() },
    { name: 'export --format csv --current', layout: 'current', write: () => exportFile('--current') },
    { name: 'GET /export?format=csv', layout: 'full', write: () => download('format=csv') },
    {
      name: 'GET /export?format=csv&current=true',
      layout: 'current',
      write: () => download('format=csv&current=true'),
    },
  ] as const;

  const headerOf = (layout: 'full' | 'current') => (layout === 'full' ? SHEET_COLUMNS : CURRENT_CSV_COLUMNS);
  /** The rows of these people, found by their member numbers. */
  const ours = (rows: string[][], layout: 'full' | 'current', numbers: string[]) =>
    rows.filter((row) => numbers.includes(row[headerOf(layout).indexOf('member_number')]));

  it.each(WRITERS)(
    '$name: a strict csv-parse finds every row whole, each cell exactly, after a byte order mark',
    async ({ layout, write }) => {
      const added = await addTricky();
      const bytes = await write();

      const rows = expectWellFormed(bytes, readStrictly(bytes), headerOf(layout));

      expect(ours(rows, layout, added.numbers)).toEqual(added[layout]);
    },
  );

  python.it.each(WRITERS)("$name: Python's csv module reads the same rows", async ({ layout, write }) => {
    const added = await addTricky();
    const bytes = await write();

    const rows = expectWellFormed(bytes, readWithPython(python.path(), bytes), headerOf(layout));

    expect(ours(rows, layout, added.numbers)).toEqual(added[layout]);
    expect(rows).toEqual(readStrictly(bytes).slice(1));
  });

  it('the export read back by the import changes nothing (the byte order mark and quoted cells included)', async () => {
    await addTricky();
    const path = tempPath('members.csv');
    await cli(t.database, ['export', '--format', 'csv', path]);

    const result = await cli(t.database, ['import', path, '--dry-run']);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/: 0 to add, 0 to update, \d+ unchanged, 0 to erase/);
  });

  it('GET /export?format=csv sent back to POST /imports?dry_run=true changes nothing', async () => {
    await addTricky();
    const bytes = await download('format=csv');

    const res = await request(t.app)
      .post('/imports?dry_run=true')
      .set('Authorization', `Bearer ${manager}`)
      .set('Content-Type', 'text/csv; charset=utf-8')
      .send(bytes);

    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({ added: 0, updated: 0, erased: 0 });
    expect(res.body.summary.unchanged).toBeGreaterThan(0);
  });
});
