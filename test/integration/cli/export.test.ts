import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { cli, countPeople } from './cli-harness';
import { personRecord, tempFile, tempPath } from './import-files';

/** The people an export holds: members, not erased. */
async function countMembers(database: Database): Promise<number> {
  const [{ count }] = await database.dataSource.query(
    "SELECT count(*)::int AS count FROM people WHERE role = 'member' AND erased_at IS NULL",
  );
  return Number(count);
}

describe.each(testDatabases)('export on $name', (target) => {
  let source: Database;
  let copy: Database;

  beforeAll(async () => {
    [source, copy] = await Promise.all([openTestDatabase(target), openTestDatabase(target)]);
  });
  afterAll(async () => {
    await Promise.all([source?.close(), copy?.close()]);
  });

  it('round-trips: an export without its ids, imported into an empty database, gives the same directory', async () => {
    expect((await cli(source, ['demo'])).code).toBe(0);
    const extra = [
      personRecord('rt', 0, { first_name: 'Zoë', last_name: "O'Brien – Ñúñez", role: 'admin' }),
      personRecord('rt', 1, {
        contacts: [
          { kind: 'address', value: '1 Orion Road\nNorthfield\nNF1 2AB', label: null },
          { kind: 'email', value: 'second@example.org', label: 'work' },
          { kind: 'email', value: 'first@example.org' },
        ],
      }),
    ];
    expect((await cli(source, ['import', tempFile(extra)])).code).toBe(0);

    const first = await cli(source, ['export']);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const path = tempPath('export.json');
    expect(await cli(source, ['export', path], { umask: 0o022 })).toMatchObject({
      code: 0,
      stdout: `exported ${await countMembers(source)} people to ${path}\n`,
    });
    expect(readFileSync(path, 'utf8')).toBe(first.stdout);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    // Ids are the directory's own: another directory takes the people without them.
    const withoutIds = (text: string) => (JSON.parse(text) as object[]).map((r) => ({ ...r, id: null }));
    expect(await countPeople(copy)).toBe(0);
    const imported = await cli(copy, ['import', tempFile(withoutIds(first.stdout))]);
    expect(imported.code).toBe(0);
    const second = await cli(copy, ['export']);

    expect(withoutIds(second.stdout)).toEqual(withoutIds(first.stdout));
    const records = JSON.parse(first.stdout) as { role: string; contacts: { value: string }[] }[];
    // Admins are never exported (the demo has some, and the file above one).
    expect(records.length).toBe(await countMembers(source));
    expect(await countPeople(source)).toBeGreaterThan(records.length);
    expect(records.every((r) => r.role === 'member')).toBe(true);
  });

  it('writes one person a line, and an empty array for an empty directory', async () => {
    const empty = await openTestDatabase(target);
    try {
      expect((await cli(empty, ['export'])).stdout).toBe('[]\n');
      await cli(empty, ['import', tempFile([personRecord('line', 0), personRecord('line', 1)])]);
      const lines = (await cli(empty, ['export'])).stdout.split('\n');
      expect(lines).toHaveLength(5);
      expect([lines[0], lines[3], lines[4]]).toEqual(['[', ']', '']);
      expect(JSON.parse(lines[1].replace(/,$/, ''))).toMatchObject({ first_name: 'Firstlinex0' });
    } finally {
      await empty.close();
    }
  });

  it('fails in one line when the file cannot be written, leaving nothing behind', async () => {
    expect(await cli(source, ['export', '/nonexistent/dir/out.json'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: cannot write /nonexistent/dir/out.json: no such directory\n',
    });
    // The target is a directory: the export is written beside it, the rename fails, the partial goes.
    const target = tempPath('taken');
    mkdirSync(join(target, 'inside'), { recursive: true });
    const failed = await cli(source, ['export', target]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^error: cannot write .*taken: /);
    expect(readdirSync(dirname(target)).filter((name) => name.includes('.partial-'))).toEqual([]);
  });
});
