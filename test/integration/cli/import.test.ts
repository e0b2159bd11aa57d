import { writeFileSync } from 'node:fs';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { uniqueName } from '../../support/app';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { cli, countPeople } from './cli-harness';
import { personRecord, tempFile, tempPath } from './import-files';

describe.each(testDatabases)('import on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(async () => {
    await database.close();
  });

  /** Runs the import and checks that, when it fails, not one person was added. */
  async function importFile(path: string) {
    const before = await countPeople(database);
    const result = await cli(database, ['import', path]);
    if (result.code !== 0) expect(await countPeople(database)).toBe(before);
    return result;
  }

  it('imports people with contacts and memberships, creating clubs, and prints a summary', async () => {
    const tag = uniqueName('imp');
    const records = [0, 1, 2, 3].map((i) => personRecord(tag, i));
    const before = await countPeople(database);

    const result = await importFile(tempFile(records));

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      /^imported \S+: 4 added, 0 updated, 0 unchanged, 0 erased, in \d+\.\d s\n$/,
    );
    expect(await countPeople(database)).toBe(before + 4);
    const rows = await database.dataSource.query(
      `SELECT p.first_name, p.chat_id, c.name AS club, m.end_date::text AS end_date
         FROM people p JOIN memberships m ON m.person_id = p.id JOIN clubs c ON c.id = m.club_id
        WHERE p.first_name = $1`,
      [`First${tag}x0`],
    );
    expect(rows).toEqual([
      {
        first_name: `First${tag}x0`,
        chat_id: `chat-${tag}-0`,
        club: `Club ${tag} 0`,
        end_date: '2022-12-31',
      },
    ]);
  });

  it('accepts a file with a byte order mark and an empty array', async () => {
    expect((await importFile(tempFile('\ufeff[]'))).stdout).toMatch(
      /^imported \S+: 0 added, 0 updated, 0 unchanged, 0 erased/,
    );
  });

  it.each([
    ['malformed JSON', '[{"first_name": "A", "last_name": }]', /^error: .* is not valid JSON: /],
    [
      'a truncated file',
      '[{"first_name": "A", "last_name": "B"}',
      /^error: .* is not valid JSON: .*\(line 1, column \d+\)/,
    ],
    [
      'an object instead of an array',
      '{"first_name": "A", "last_name": "B"}',
      /^error: 1 problem in .*; nothing was imported\n {2}the file must hold a JSON array of people\n$/,
    ],
  ])('refuses %s with exit 1 and imports nothing', async (_name, content, message) => {
    const result = await importFile(tempFile(content));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('names the record and field of each problem and imports nothing', async () => {
    const tag = uniqueName('bad');
    const good = (i: number) => personRecord(tag, i);
    const path = tempFile([
      good(0),
      { ...good(1), last_name: undefined },
      { ...good(2), memberships: [{ club: 'C', start_date: '2024-02-30' }] },
      { ...good(3), memberships: [{ club: 'C', start_date: '2024-05-01', end_date: '2024-04-01' }] },
      { ...good(4), contacts: [{ kind: 'pager', value: '123' }] },
      { ...good(5), chat_id: `chat-${tag}-0` },
    ]);

    const result = await importFile(path);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        `error: 5 problems in ${path}; nothing was imported`,
        '  record 1: last_name is required',
        '  record 2: memberships[0].start_date must be a calendar date written YYYY-MM-DD',
        '  record 3: memberships[0].end_date is before start_date',
        '  record 4: contacts[0].kind must be email, phone or address',
        `  record 5: chat_id "chat-${tag}-0" is also used by record 0`,
        '',
      ].join('\n'),
    );
  });

  it('names the record, or the row, and the field of an id larger than an id can be, dry run or not', async () => {
    const json = tempFile([{ id: 2147483648, last_name: 'Large' }]);
    const csv = tempFile('id,last_name\n2147483648,Large\n', 'roster.csv');
    for (const options of [[], ['--dry-run']]) {
      const fromJson = await cli(database, ['import', json, ...options]);
      expect(fromJson.code).toBe(1);
      expect(fromJson.stderr).toContain(
        '  record 0: id must be a whole number from 1 to 2147483647, or null\n',
      );
      const fromCsv = await cli(database, ['import', csv, ...options]);
      expect(fromCsv.code).toBe(1);
      expect(fromCsv.stderr).toContain(
        '  row 2, column id: must be a whole number from 1 to 2147483647, or empty\n',
      );
    }
  });

  it('refuses a chat_id that a person in the database already has', async () => {
    const tag = uniqueName('dup');
    await importFile(tempFile([personRecord(tag, 0)]));

    const result = await importFile(
      tempFile([personRecord(tag, 2), personRecord(`${tag}b`, 0, { chat_id: `chat-${tag}-0` })]),
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`record 1: chat_id "chat-${tag}-0" is already used by person `);
  });

  it('shows at most 20 problems and counts the rest', async () => {
    const records = Array.from({ length: 25 }, (_, i) => ({ first_name: `N${i}` }));
    const result = await importFile(tempFile(records));
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: 25 problems in /);
    expect(lines).toHaveLength(22);
    expect(lines[21]).toBe('  ... and 5 more');
  });

  it('refuses a 5 MB file whose only bad record is the last one, importing nothing', async () => {
    const tag = uniqueName('big');
    const records: unknown[] = [];
    let size = 0;
    for (let i = 0; size < 5 * 1024 * 1024; i++) {
      const record = personRecord(tag, i);
      records.push(record);
      size += JSON.stringify(record).length + 1;
    }
    records.push(
      personRecord(tag, records.length, { memberships: [{ club: 'X', start_date: '2024-13-01' }] }),
    );
    const path = tempFile(records);

    const result = await importFile(path);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: 1 problem in ${path}; nothing was imported\n` +
        `  record ${records.length - 1}: memberships[0].start_date must be a calendar date written YYYY-MM-DD\n`,
    );
  });

  it('refuses a file that is not UTF-8, naming the line, instead of importing U+FFFD', async () => {
    const path = tempPath('latin1.json');
    writeFileSync(path, Buffer.from('[\n{"first_name": "Zo\u00eb", "last_name": "B"}\n]', 'latin1'));
    expect(await importFile(path)).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${path} is not UTF-8 text (line 2); save it as UTF-8\n`,
    });
  });

  it('names the record and field of a lone surrogate or a control character, importing nothing', async () => {
    const tag = uniqueName('text');
    const path = tempFile(
      `[${JSON.stringify(personRecord(tag, 0))}, {"first_name": "A\\ud800", "last_name": "B\\u0007"}]`,
    );
    const result = await importFile(path);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        `error: 2 problems in ${path}; nothing was imported`,
        '  record 1: first_name must not contain a lone surrogate (U+D800)',
        '  record 1: last_name must not contain control characters (found U+0007)',
        '',
      ].join('\n'),
    );
  });

  it('reports a missing file in one line', async () => {
    expect(await importFile('/nonexistent/people.json')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: cannot read /nonexistent/people.json: no such file\n',
    });
  });
});
