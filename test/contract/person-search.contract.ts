import { type Grace, graceOf, NO_GRACE } from '../../src/domain/grace';
import { personView } from '../../src/application/people/person-view';
import type { Person } from '../../src/domain/person';
import type { PersonFilter } from '../../src/domain/person-filter';
import { STANDINGS } from '../../src/domain/standing';
import { caseFoldingCases, caseFoldingPeople } from './case-folding-cases';
import {
  type ContractAdapter,
  collect,
  memberIdsTagged,
  newPerson,
  TODAY,
  uniqueTag,
} from './contract-adapter';

/**
 * PersonRepository's search, stream and streamAll: the matching rules of SPEC §1 and §2, the
 * order, keyset paging and streaming in batches.
 */
export function describePersonSearchContract(adapter: () => ContractAdapter): void {
  const people = () => adapter().repositories.people;

  /** Searches among the people of one test only: their last names carry its tag. */
  async function lastNamesMatching(tag: string, filter: PersonFilter): Promise<string[]> {
    const found = await people().search({ filter: { lastName: tag, ...filter }, today: TODAY }, 1000);
    return found.map((person) => person.lastName.replace(tag, '').trim());
  }

  describe('PersonRepository search filters', () => {
    it('filters by standing and in_good_standing as each person stands, under any grace', async () => {
      const tag = uniqueTag();
      const membership = (kind: string | null, startDate: string, endDate: string | null) => ({
        club: 'Astronomy',
        kind,
        startDate,
        endDate,
      });
      await people().insertMany([
        newPerson({ lastName: `${tag} a`, memberships: [membership('Student', '2023-06-15', '2024-06-10')] }),
        newPerson({ lastName: `${tag} b`, memberships: [membership(null, '2024-06-01', '2024-06-15')] }),
        newPerson({ lastName: `${tag} c`, memberships: [membership('full', '2024-07-01', null)] }),
        newPerson({ lastName: `${tag} d`, memberships: [membership('full', '2020-01-01', '2020-12-31')] }),
        newPerson({ lastName: `${tag} e` }),
      ]);
      for (const grace of [NO_GRACE, graceOf(3, [['STUDENT', 10]])]) {
        for (const today of [TODAY, '2024-06-16', '2024-06-20', '2024-06-21']) {
          const everyone = await people().search({ filter: { lastName: tag }, today, grace }, 100);
          const standingOf = new Map(everyone.map((p) => [p.id, personView(p, today, grace).standing]));
          const ids = async (filter: PersonFilter) =>
            (await people().search({ filter: { lastName: tag, ...filter }, today, grace }, 100)).map(
              (p) => p.id,
            );
          for (const standing of STANDINGS) {
            const expected = everyone.filter((p) => standingOf.get(p.id) === standing).map((p) => p.id);
            expect([today, standing, await ids({ standing: [standing] })]).toEqual([
              today,
              standing,
              expected,
            ]);
          }
          const good = everyone
            .filter((p) => ['current', 'grace'].includes(standingOf.get(p.id) ?? ''))
            .map((p) => p.id);
          expect(await ids({ inGoodStanding: true })).toEqual(good);
          expect(await ids({ inGoodStanding: false })).toEqual(
            everyone.map((p) => p.id).filter((id) => !good.includes(id)),
          );
          expect(await ids({ standing: ['grace', 'none'], inGoodStanding: true })).toEqual(
            everyone.filter((p) => standingOf.get(p.id) === 'grace').map((p) => p.id),
          );
        }
      }
    });

    it('matches email case-insensitively and exactly, against email contacts only', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({
          lastName: `${tag} work`,
          contacts: [
            { kind: 'phone', value: `bob.${tag}@example.org`, label: null },
            { kind: 'email', value: `Ada.${tag}@Example.org`, label: 'work' },
          ],
        }),
        newPerson({
          lastName: `${tag} longer`,
          contacts: [{ kind: 'email', value: `ada.${tag}@example.org.uk`, label: null }],
        }),
        newPerson({
          lastName: `${tag} phone`,
          contacts: [{ kind: 'phone', value: `ada.${tag}@example.org`, label: null }],
        }),
      ]);

      expect(await lastNamesMatching(tag, { email: `ADA.${tag}@EXAMPLE.org` })).toEqual(['work']);
      expect(await lastNamesMatching(tag, { email: `ada.${tag}@example` })).toEqual([]);
      expect(await lastNamesMatching(tag, { email: `bob.${tag}@example.org` })).toEqual([]);
    });

    it('matches first and last names as case-insensitive substrings, each on its own field', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({ firstName: 'Grace', lastName: `${tag} Hopper` }),
        newPerson({ firstName: 'Ada', lastName: `${tag} Lovelace` }),
      ]);

      expect(await lastNamesMatching(tag, { firstName: 'RAC' })).toEqual(['Hopper']);
      expect(await people().search({ filter: { lastName: `${tag} hOP` }, today: TODAY }, 10)).toHaveLength(1);
      expect(await lastNamesMatching(tag, { firstName: 'Grace Hopper' })).toEqual([]);
    });

    it('treats %, _ and \\ in a name filter as themselves', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({ firstName: '100% sure', lastName: `${tag} percent` }),
        newPerson({ firstName: 'a_b', lastName: `${tag} underscore` }),
        newPerson({ firstName: 'back\\slash', lastName: `${tag} backslash` }),
        newPerson({ firstName: 'plain axb', lastName: `${tag} plain` }),
      ]);

      expect(await lastNamesMatching(tag, { firstName: '%' })).toEqual(['percent']);
      expect(await lastNamesMatching(tag, { firstName: '_' })).toEqual(['underscore']);
      expect(await lastNamesMatching(tag, { firstName: '\\' })).toEqual(['backslash']);
      expect(await lastNamesMatching(tag, { firstName: 'a_b' })).toEqual(['underscore']);
      expect(await lastNamesMatching(tag, { firstName: 'k\\s' })).toEqual(['backslash']);
    });

    it('matches chat_id exactly and case-sensitively', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({ lastName: `${tag} lower`, chatId: `${tag}-chat` }),
        newPerson({ lastName: `${tag} upper`, chatId: `${tag}-CHAT` }),
      ]);

      expect(await lastNamesMatching(tag, { chatId: `${tag}-chat` })).toEqual(['lower']);
      expect(await lastNamesMatching(tag, { chatId: `${tag}-CHAT` })).toEqual(['upper']);
      expect(await lastNamesMatching(tag, { chatId: `${tag}-ch` })).toEqual([]);
    });

    it('decides active from memberships current today, both ends inclusive, an open end current', async () => {
      const tag = uniqueTag();
      const membership = (startDate: string, endDate: string | null) => ({
        club: `Club ${tag}`,
        kind: null,
        startDate,
        endDate,
      });
      await people().insertMany([
        newPerson({ lastName: `${tag} starts-today`, memberships: [membership(TODAY, null)] }),
        newPerson({ lastName: `${tag} ends-today`, memberships: [membership('2020-01-01', TODAY)] }),
        newPerson({
          lastName: `${tag} ended-yesterday`,
          memberships: [membership('2020-01-01', '2024-06-14')],
        }),
        newPerson({ lastName: `${tag} starts-tomorrow`, memberships: [membership('2024-06-16', null)] }),
        newPerson({ lastName: `${tag} none` }),
        newPerson({
          lastName: `${tag} old-and-current`,
          memberships: [membership('2010-01-01', '2011-01-01'), membership('2024-01-01', '2024-12-31')],
        }),
      ]);

      expect(await lastNamesMatching(tag, { active: 'yes' })).toEqual([
        'starts-today',
        'ends-today',
        'old-and-current',
      ]);
      expect(await lastNamesMatching(tag, { active: 'no' })).toEqual([
        'ended-yesterday',
        'starts-tomorrow',
        'none',
      ]);
    });

    it('decides ending_before from the memberships as recorded: current today, not the day after the date', async () => {
      const tag = uniqueTag();
      const membership = (startDate: string, endDate: string | null) => ({
        club: `Club ${tag}`,
        kind: null,
        startDate,
        endDate,
      });
      await people().insertMany([
        newPerson({
          lastName: `${tag} ends-on-the-date`,
          memberships: [membership('2024-01-01', '2024-06-30')],
        }),
        newPerson({ lastName: `${tag} ends-after`, memberships: [membership('2024-01-01', '2024-07-01')] }),
        newPerson({ lastName: `${tag} open`, memberships: [membership('2024-01-01', null)] }),
        newPerson({
          lastName: `${tag} renewed`,
          memberships: [membership('2024-01-01', '2024-06-30'), membership('2024-07-01', '2025-06-30')],
        }),
        newPerson({
          lastName: `${tag} gap`,
          memberships: [membership('2024-01-01', '2024-06-30'), membership('2024-07-02', '2025-06-30')],
        }),
        newPerson({ lastName: `${tag} not-yet`, memberships: [membership('2024-06-20', '2024-06-25')] }),
      ]);

      expect(await lastNamesMatching(tag, { endingBefore: '2024-06-30' })).toEqual([
        'ends-on-the-date',
        'gap',
      ]);
      expect(await lastNamesMatching(tag, { endingBefore: TODAY })).toEqual([]);
    });

    it('filters on having a chat_id or a planner_id, and combines filters with AND', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({ lastName: `${tag} chat`, chatId: `${tag}-c` }),
        newPerson({ lastName: `${tag} planner`, plannerId: 'p-1' }),
        newPerson({ lastName: `${tag} both`, firstName: 'Both', chatId: `${tag}-b`, plannerId: 'p-2' }),
        newPerson({ lastName: `${tag} neither` }),
      ]);

      expect(await lastNamesMatching(tag, { hasChat: true })).toEqual(['chat', 'both']);
      expect(await lastNamesMatching(tag, { hasChat: false })).toEqual(['planner', 'neither']);
      expect(await lastNamesMatching(tag, { hasPlanner: true })).toEqual(['planner', 'both']);
      expect(await lastNamesMatching(tag, { hasPlanner: false, hasChat: false })).toEqual(['neither']);
      expect(await lastNamesMatching(tag, { hasPlanner: true, hasChat: true })).toEqual(['both']);
      expect(await lastNamesMatching(tag, { hasPlanner: true, firstName: 'ada' })).toEqual(['planner']);
    });

    it('never returns admins, whatever the filter', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({ lastName: `${tag} admin`, role: 'admin', chatId: `${tag}-admin` }),
        newPerson({ lastName: `${tag} member` }),
      ]);

      expect(await lastNamesMatching(tag, {})).toEqual(['member']);
      expect(await lastNamesMatching(tag, { chatId: `${tag}-admin` })).toEqual([]);
      expect(await collect(people().stream({ filter: { lastName: tag }, today: TODAY }))).toHaveLength(1);
    });

    it('takes a filter value as data, never as a query', async () => {
      const tag = uniqueTag();
      await people().insertMany([newPerson({ lastName: tag })]);

      expect(await lastNamesMatching(tag, { firstName: "'; DROP TABLE people; --" })).toEqual([]);
      expect(await lastNamesMatching(tag, {})).toEqual(['']);
    });
  });

  describe('PersonRepository case-insensitive matching (Unicode case folding)', () => {
    const tag = uniqueTag();
    const ids: Record<string, number> = {};

    beforeAll(async () => {
      const named = caseFoldingPeople(tag);
      await people().insertMany(Object.values(named));
      const created = await memberIdsTagged(adapter(), tag);
      Object.keys(named).forEach((name, index) => {
        ids[name] = created[index];
      });
    });

    it.each(caseFoldingCases(tag))('%s', async (_title, filter, expected) => {
      const found = await people().search({ filter: { lastName: tag, ...filter }, today: TODAY }, 100);
      expect(found.map((p) => p.id)).toEqual(expected.map((name) => ids[name]).sort((a, b) => a - b));
    });

    it('matches a changed name by its new value', async () => {
      const changed = uniqueTag();
      await people().insertMany([newPerson({ firstName: 'Zoë', lastName: changed })]);
      const [id] = await memberIdsTagged(adapter(), changed);

      await people().update(id, { firstName: 'ΣΤΡΑΣΣΕ' });

      const search = (firstName: string) =>
        people().search({ filter: { lastName: changed, firstName }, today: TODAY }, 10);
      expect((await search('στρασσε')).map((p) => p.id)).toEqual([id]);
      expect(await search('zoë')).toEqual([]);
    });

    it('matches the names of a member made with an account', async () => {
      const accountTag = uniqueTag();
      const account = await adapter().repositories.accounts.create({
        username: `u${accountTag}`.toLowerCase(),
        passwordHash: 'x',
        permissions: [],
        firstName: 'Straße',
        lastName: `ΣΊΣΥΦΟΣ${accountTag}`,
        role: 'member',
      });

      const found = await people().search(
        { filter: { lastName: `σίσυφος${accountTag}`, firstName: 'STRASSE' }, today: TODAY },
        10,
      );

      expect(found.map((p) => p.id)).toEqual([account.personId]);
    });
  });

  describe('PersonRepository order and paging', () => {
    it('returns people by id, at most limit, after a given id (keyset paging)', async () => {
      const tag = uniqueTag();
      await people().insertMany(
        ['a', 'b', 'c', 'd', 'e'].map((name) => newPerson({ lastName: `${tag} ${name}` })),
      );
      const ids = await memberIdsTagged(adapter(), tag);
      const page = (limit: number, after?: number) =>
        people().search({ filter: { lastName: tag }, today: TODAY, after }, limit);

      const first = await page(2);
      expect(first.map((p) => p.id)).toEqual(ids.slice(0, 2));
      expect((await page(2, first[1].id)).map((p) => p.id)).toEqual(ids.slice(2, 4));
      // A page asked one longer than it shows tells whether another page follows.
      expect((await page(3, ids[2])).map((p) => p.id)).toEqual(ids.slice(3));
      expect(await page(3, ids[4])).toEqual([]);
      expect(await lastNamesMatching(tag, {})).toEqual(['a', 'b', 'c', 'd', 'e']);
    });

    it('shows contacts by kind (email, phone, address) then id, and memberships by start date then id', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({
          lastName: tag,
          contacts: [
            { kind: 'address', value: '1 Road\nTown', label: null },
            { kind: 'phone', value: '2', label: null },
            { kind: 'email', value: 'b@example.org', label: 'second' },
            { kind: 'email', value: 'a@example.org', label: 'first' },
          ],
          memberships: [
            { club: `Late ${tag}`, kind: 'full', startDate: '2022-01-01', endDate: null },
            { club: `Early ${tag}`, kind: null, startDate: '2019-05-01', endDate: '2020-04-30' },
            { club: `Same day ${tag}`, kind: null, startDate: '2022-01-01', endDate: null },
          ],
        }),
      ]);

      const [person] = await people().search({ filter: { lastName: tag }, today: TODAY }, 1);

      expect(person.contacts.map((c) => [c.kind, c.value, c.label])).toEqual([
        ['email', 'b@example.org', 'second'],
        ['email', 'a@example.org', 'first'],
        ['phone', '2', null],
        ['address', '1 Road\nTown', null],
      ]);
      expect(person.memberships.map((m) => [m.club.name, m.kind, m.startDate, m.endDate])).toEqual([
        [`Early ${tag}`, null, '2019-05-01', '2020-04-30'],
        [`Late ${tag}`, 'full', '2022-01-01', null],
        [`Same day ${tag}`, null, '2022-01-01', null],
      ]);
    });
  });

  describe('PersonRepository streams', () => {
    it('streams everyone, admins included, by id from streamAll', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({ lastName: `${tag} admin`, role: 'admin' }),
        newPerson({ lastName: `${tag} member` }),
      ]);

      const everyone = await collect(people().streamAll());
      const mine = everyone.filter((p) => p.lastName.includes(tag));

      expect(mine.map((p) => p.role)).toEqual(['admin', 'member']);
      expect(everyone.map((p) => p.id)).toEqual([...everyone.map((p) => p.id)].sort((a, b) => a - b));
      expect(everyone).toHaveLength(await people().count());
    });

    // Last in this suite: the people it adds make every later streamAll longer.
    it('streams every match by id across batches, after a given id, leaving the store free meanwhile', async () => {
      const tag = uniqueTag();
      const count = 2345;
      await people().insertMany(
        Array.from({ length: count }, (_, i) =>
          newPerson({ lastName: `${tag} ${i}`, chatId: `${tag}-${i}` }),
        ),
      );
      const ids = await memberIdsTagged(adapter(), tag);

      const streamed: Person[] = [];
      for await (const person of people().stream({
        filter: { lastName: tag },
        today: TODAY,
        after: ids[9],
      })) {
        // Other work between items: a stream holds nothing the rest of the service needs.
        if (streamed.length === 0) await people().update(person.id, { firstName: 'Changed' });
        streamed.push(person);
      }

      expect(ids).toHaveLength(count);
      expect(streamed.map((p) => p.id)).toEqual(ids.slice(10));
      expect(streamed[streamed.length - 1].chatId).toBe(`${tag}-${count - 1}`);
    });
  });

  describe('PersonRepository rendered searches (the read model)', () => {
    // Text that JSON escapes (quotes, backslashes, control characters) and text it must not
    // (non-ASCII, astral characters, U+2028, DEL, a slash), in every field that holds text.
    const awkward = ['Quote " and \\ back', 'tab\tnew\nline\r\u0001\u001f\u007f', 'Zoë 𝔘 \u2028 </x> ☃'];

    async function renderedBothWays(tag: string, today: string, limit: number, grace: Grace = NO_GRACE) {
      const query = { filter: { lastName: tag }, today, grace };
      const expected = (await people().search(query, limit)).map((person) => ({
        id: person.id,
        json: JSON.stringify(personView(person, today, grace)),
      }));
      return {
        expected,
        searched: await people().searchRendered(query, limit),
        streamed: await collect(people().streamRendered(query)),
      };
    }

    it('writes each person byte for byte as JSON.stringify writes its view, whatever the text', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({
          firstName: awkward[0],
          lastName: `${tag} ${awkward[1]}`,
          chatId: awkward[2],
          plannerId: 'planner "7"',
          contacts: [
            { kind: 'address', value: `1 Main St\n${awkward[2]}`, label: awkward[0] },
            { kind: 'phone', value: '+44 20 7946 0000', label: null },
            { kind: 'email', value: `ada.${tag}@example.org`, label: 'work' },
            { kind: 'email', value: `second.${tag}@example.org`, label: awkward[1] },
          ],
          memberships: [
            { club: `Club ${awkward[0]}`, kind: null, startDate: '2024-06-15', endDate: null },
            { club: `Club ${awkward[2]}`, kind: 'student', startDate: '2020-01-01', endDate: '2024-06-14' },
            { club: `Club ${awkward[2]}`, kind: 'family', startDate: '2024-06-16', endDate: '2025-01-01' },
          ],
        }),
        newPerson({ lastName: `${tag} bare` }),
        newPerson({ lastName: `${tag} hidden`, role: 'admin' }),
      ]);

      for (const today of [TODAY, '2024-06-16']) {
        const { expected, searched, streamed } = await renderedBothWays(tag, today, 10);
        expect(expected).toHaveLength(2);
        expect(searched).toEqual(expected);
        expect(streamed).toEqual(expected);
      }
    });

    it('writes standing, status, grace_until and good_standing_until as the view does, under any grace', async () => {
      const tag = uniqueTag();
      const membership = (kind: string | null, startDate: string, endDate: string | null) => ({
        club: 'Astronomy',
        kind,
        startDate,
        endDate,
      });
      await people().insertMany([
        // Ended on 14 June, renewed from 1 July: a gap that a grace bridges.
        newPerson({
          lastName: `${tag} renewed`,
          memberships: [
            membership('Student', '2023-06-15', '2024-06-14'),
            membership('full', '2024-07-01', '2025-06-30'),
          ],
        }),
        newPerson({ lastName: `${tag} joining`, memberships: [membership(null, '2024-07-01', null)] }),
        newPerson({
          lastName: `${tag} current`,
          memberships: [membership('full', '2024-01-01', '2024-06-15')],
        }),
        newPerson({ lastName: `${tag} none` }),
      ]);
      const graces = [NO_GRACE, graceOf(1), graceOf(0, [['STUDENT', 30]])];
      for (const grace of graces) {
        for (const today of [TODAY, '2024-06-16', '2024-07-14', '2024-07-15']) {
          const { expected, searched, streamed } = await renderedBothWays(tag, today, 10, grace);
          expect(expected).toHaveLength(4);
          expect(searched).toEqual(expected);
          expect(streamed).toEqual(expected);
        }
      }
      const { expected } = await renderedBothWays(tag, '2024-06-16', 10, graces[2]);
      expect(expected.map((one) => JSON.parse(one.json).standing)).toEqual([
        'grace',
        'pending',
        'lapsed',
        'none',
      ]);
    });

    it('pages and streams rendered people like their domain counterparts', async () => {
      const tag = uniqueTag();
      await people().insertMany(Array.from({ length: 5 }, (_, i) => newPerson({ lastName: `${tag} ${i}` })));
      const { expected, searched } = await renderedBothWays(tag, TODAY, 3);
      expect(searched).toEqual(expected);
      const all = await collect(people().streamRendered({ filter: { lastName: tag }, today: TODAY }));
      expect(all.map((person) => person.id)).toEqual(await memberIdsTagged(adapter(), tag));
      const after = all[1].id;
      const rest = await people().searchRendered({ filter: { lastName: tag }, today: TODAY, after }, 10);
      expect(rest.map((person) => person.id)).toEqual(all.slice(2).map((person) => person.id));
    });
  });
}
