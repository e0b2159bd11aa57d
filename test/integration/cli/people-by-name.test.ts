import { readFileSync } from 'node:fs';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { cli } from './cli-harness';
import { tempPath } from './import-files';

const CURRENT = { club: 'Astronomy', kind: 'full', startDate: '2000-01-01', endDate: null };
const PAST = { club: 'Astronomy', kind: 'full', startDate: '2000-01-01', endDate: '2001-12-31' };

/** SPEC §9, "The command line by name": people find, --member-number, the confirmation of erase. */
describe.each(testDatabases)('people by name on the command line on $name', (target) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(target);
  });
  afterAll(() => t.close());

  const tool = (argv: string[], options: { stdin?: string; ttyStdin?: boolean } = {}) =>
    cli(t.database, argv, { ...options, container: t.container });
  const isErased = async (id: number) =>
    (await t.database.dataSource.query('SELECT erased_at FROM people WHERE id = $1', [id]))[0].erased_at !==
    null;

  describe('people find', () => {
    const tag = uniqueName('F').toLowerCase();
    let ids: Record<string, number>;

    beforeAll(async () => {
      const added = await t.addPeople([
        newPerson({
          firstName: `Cecilia${tag}`,
          lastName: 'Payne',
          memberNumber: `NA-${tag}`,
          chatId: `chat-${tag}`,
          contacts: [
            { kind: 'phone', value: '+44 1', label: null },
            { kind: 'email', value: `Cecilia.${tag}@Example.org`, label: null },
            { kind: 'email', value: `second.${tag}@example.org`, label: null },
          ],
          memberships: [CURRENT],
        }),
        newPerson({ firstName: 'Henrietta', lastName: `LEAVITT${tag}`, memberships: [PAST] }),
        newPerson({ firstName: `100%_\\${tag}`, lastName: 'Literal' }),
        newPerson({ firstName: `Straße${tag}`, lastName: 'Folded' }),
        newPerson({ role: 'admin', firstName: `Admin${tag}`, lastName: `Hidden${tag}` }),
        newPerson({ firstName: `Erased${tag}`, lastName: 'Soon', memberNumber: `ER-${tag}` }),
      ]);
      ids = { cecilia: added[0], henrietta: added[1], literal: added[2], folded: added[3], erased: added[5] };
      expect((await tool(['people', 'erase', String(ids.erased), '--yes'])).code).toBe(0);
    });

    const idsIn = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => Number(line.split(/\s+/)[0]));

    it('prints a table of id, member number, names, first email, whether current and the standing', async () => {
      const found = await tool(['people', 'find', `cecilia${tag.toUpperCase()}`]);
      expect(found.code).toBe(0);
      expect(found.stderr).toBe('');
      const [header, row, ...rest] = found.stdout.trimEnd().split('\n');
      expect(header.split(/\s{2,}/)).toEqual([
        'ID',
        'MEMBER NUMBER',
        'FIRST NAME',
        'LAST NAME',
        'EMAIL',
        'CURRENT',
        'STANDING',
      ]);
      expect(row.split(/\s{2,}/)).toEqual([
        String(ids.cecilia),
        `NA-${tag}`,
        `Cecilia${tag}`,
        'Payne',
        `Cecilia.${tag}@Example.org`,
        'yes',
        'current',
      ]);
      expect(rest).toEqual([]);
    });

    it('matches a part of a first or a last name case-insensitively, by Unicode case folding', async () => {
      expect(idsIn((await tool(['people', 'find', `avitt${tag}`])).stdout)).toEqual([ids.henrietta]);
      const henrietta = (await tool(['people', 'find', `leavitt${tag}`])).stdout;
      expect(henrietta).toMatch(/\s-\s+no\s+lapsed$/m); // no member number, no email, not current
      expect(idsIn((await tool(['people', 'find', `STRASSE${tag}`])).stdout)).toEqual([ids.folded]);
    });

    it('takes %, _ and \\ as themselves', async () => {
      expect(idsIn((await tool(['people', 'find', `%_\\${tag}`])).stdout)).toEqual([ids.literal]);
      expect((await tool(['people', 'find', `1%0_${tag}`])).stdout).toBe(`nobody found for "1%0_${tag}"\n`);
    });

    it('matches an email case-insensitively and whole, a member number and a chat_id exactly', async () => {
      expect(idsIn((await tool(['people', 'find', `CECILIA.${tag}@example.ORG`])).stdout)).toEqual([
        ids.cecilia,
      ]);
      expect(idsIn((await tool(['people', 'find', `second.${tag}@example.org`])).stdout)).toEqual([
        ids.cecilia,
      ]);
      expect((await tool(['people', 'find', `cecilia.${tag}@example`])).stdout).toMatch(/^nobody found/);
      expect(idsIn((await tool(['people', 'find', `NA-${tag}`])).stdout)).toEqual([ids.cecilia]);
      expect((await tool(['people', 'find', `na-${tag}`])).stdout).toMatch(/^nobody found/);
      expect(idsIn((await tool(['people', 'find', `chat-${tag}`])).stdout)).toEqual([ids.cecilia]);
    });

    it('lists each person once, by id, when several fields match', async () => {
      const both = await t.addPeople([newPerson({ firstName: `Twice${tag}`, lastName: `Twice${tag}` })]);
      expect(idsIn((await tool(['people', 'find', `twice${tag}`])).stdout)).toEqual(both);
      expect(idsIn((await tool(['people', 'find', tag])).stdout)).toEqual([
        ids.cecilia,
        ids.henrietta,
        ids.literal,
        ids.folded,
        ...both,
      ]);
    });

    it('never lists an admin or an erased person', async () => {
      expect((await tool(['people', 'find', `Hidden${tag}`])).stdout).toBe(
        `nobody found for "Hidden${tag}"\n`,
      );
      expect((await tool(['people', 'find', `Erased${tag}`])).stdout).toMatch(/^nobody found/);
      expect((await tool(['people', 'find', 'erased'])).stdout).not.toContain(String(ids.erased));
    });

    it('says in one line that nobody was found, with exit 0; refuses an empty text', async () => {
      expect(await tool(['people', 'find', `nobody-${tag}`])).toEqual({
        code: 0,
        stdout: `nobody found for "nobody-${tag}"\n`,
        stderr: '',
      });
      expect(await tool(['people', 'find', '  '])).toMatchObject({ code: 1, stdout: '' });
      expect((await tool(['people', 'find', '  '])).stderr.split('\n')).toHaveLength(2); // one line
      expect((await tool(['people', 'find'])).code).toBe(2);
    });
  });

  describe('--member-number', () => {
    it('names the person for export-data, to a file or standard output', async () => {
      const memberNumber = uniqueName('NA');
      const [id] = await t.addPeople([newPerson({ memberNumber })]);
      const out = await tool(['people', 'export-data', '--member-number', memberNumber]);
      expect(out.code).toBe(0);
      expect(JSON.parse(out.stdout).person).toMatchObject({ id, member_number: memberNumber });

      const file = tempPath('data.json');
      const written = await tool(['people', 'export-data', '--member-number', memberNumber, file]);
      expect(written).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(readFileSync(file, 'utf8')).person.id).toBe(id);
    });

    it('refuses an unknown member number in one line with exit 1, and an ID given too as wrong usage', async () => {
      const [id] = await t.addPeople([newPerson({ memberNumber: uniqueName('NA') })]);
      for (const command of ['export-data', 'erase']) {
        expect(
          await tool(
            ['people', command, '--member-number', 'NO-SUCH', '--yes'].slice(0, command === 'erase' ? 5 : 4),
          ),
        ).toEqual({
          code: 1,
          stdout: '',
          stderr: 'error: no person has the member number "NO-SUCH"\n',
        });
        const both = await tool(['people', command, String(id), '--member-number', 'NA-1']);
        expect(both.code).toBe(2);
        expect(both.stderr).toMatch(/^error: give either an ID or --member-number, not both/);
        expect((await tool(['people', command, '--member-number', ''])).code).toBe(2);
      }
      expect((await tool(['people', 'export-data'])).code).toBe(2);
      expect(
        (await tool(['people', 'erase', '--member-number', 'NA-1', '--ended-before', '2020-01-01'])).code,
      ).toBe(2);
      expect(await isErased(id)).toBe(false);
    });

    it('names the person for erase, with --yes', async () => {
      const memberNumber = uniqueName('NA');
      const [id] = await t.addPeople([newPerson({ memberNumber })]);
      expect(await tool(['people', 'erase', '--member-number', memberNumber, '--yes'])).toEqual({
        code: 0,
        stdout: `erased member ${memberNumber} (person ${id})\n`,
        stderr: '',
      });
      expect(await isErased(id)).toBe(true);
    });
  });

  describe('confirming people erase', () => {
    it('without a terminal, needs --yes, in one line, erasing nobody', async () => {
      const [id] = await t.addPeople([newPerson()]);
      expect(await tool(['people', 'erase', String(id)], { stdin: `${id}\n` })).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: standard input is not a terminal, so erasing cannot be confirmed here: give --yes to erase person ${id}\n`,
      });
      expect(await isErased(id)).toBe(false);
    });

    it('at a terminal, shows who and erases when their member number is typed back', async () => {
      const memberNumber = uniqueName('NA');
      const [id] = await t.addPeople([
        newPerson({
          firstName: 'Cecilia',
          lastName: 'Payne',
          memberNumber,
          contacts: [{ kind: 'email', value: 'cecilia@example.org', label: null }],
          memberships: [CURRENT],
        }),
      ]);
      const done = await tool(['people', 'erase', String(id)], {
        ttyStdin: true,
        stdin: `${memberNumber}\n`,
      });
      expect(done).toMatchObject({ code: 0, stdout: `erased person ${id}\n` });
      expect(done.stderr).toContain('This erases, and it cannot be undone:');
      expect(done.stderr).toMatch(
        new RegExp(
          `^${id}\\s+${memberNumber}\\s+Cecilia\\s+Payne\\s+cecilia@example.org\\s+yes\\s+current$`,
          'm',
        ),
      );
      expect(done.stderr).toContain(`To confirm, type their member number (${memberNumber}): `);
      expect(await isErased(id)).toBe(true);
    });

    it('at a terminal, cancels in one line on anything else, or on the end of input', async () => {
      const memberNumber = uniqueName('NA');
      const [id] = await t.addPeople([newPerson({ firstName: 'Annie', lastName: 'Cannon', memberNumber })]);
      for (const typed of [`${memberNumber}x\n`, 'Annie Cannon\n', String(id), '\n', '']) {
        const cancelled = await tool(['people', 'erase', '--member-number', memberNumber], {
          ttyStdin: true,
          stdin: typed,
        });
        expect(cancelled.code).toBe(1);
        expect(cancelled.stdout).toBe('');
        expect(cancelled.stderr).toMatch(/error: cancelled[^\n]*; nobody was erased\n$/);
        expect(cancelled.stderr.match(/error:/g)).toHaveLength(1);
      }
      expect(await isErased(id)).toBe(false);
    });

    it('at a terminal, asks for the full name of someone without a member number, and tells of their account', async () => {
      const holder = await t.createAccount({ role: 'member' });
      const [{ first_name: first, last_name: last }] = await t.database.dataSource.query(
        'SELECT first_name, last_name FROM people WHERE id = $1',
        [holder.personId],
      );
      const wrong = await tool(['people', 'erase', String(holder.personId)], {
        ttyStdin: true,
        stdin: `${first}\n`,
      });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain(`To confirm, type their full name (${first} ${last}): `);
      expect(wrong.stderr).toContain('They hold an account: it is disabled and its keys are revoked.');

      const typed = `  ${first.toUpperCase()}   ${last.toLowerCase()} \n`;
      const done = await tool(['people', 'erase', String(holder.personId)], { ttyStdin: true, stdin: typed });
      expect(done).toMatchObject({
        code: 0,
        stdout: `erased person ${holder.personId} and disabled the account "${holder.username}"\n`,
      });
    });

    it('at a terminal, --yes erases without asking; an erased person or an admin is not asked about', async () => {
      const [id] = await t.addPeople([newPerson()]);
      expect(await tool(['people', 'erase', String(id), '--yes'], { ttyStdin: true })).toEqual({
        code: 0,
        stdout: `erased person ${id}\n`,
        stderr: '',
      });
      expect(await tool(['people', 'erase', String(id)], { ttyStdin: true })).toEqual({
        code: 0,
        stdout: `person ${id} was already erased\n`,
        stderr: '',
      });
      const admin = await t.createAccount({ role: 'admin' });
      const refused = await tool(['people', 'erase', String(admin.personId)], { ttyStdin: true });
      expect(refused).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^error: person \d+ is an admin/),
      });
    });
  });
});
