import { Conflict, NotFound } from '../../src/domain/errors';
import {
  type ContractAdapter,
  idsTagged,
  memberIdsTagged,
  newPerson,
  TODAY,
  uniqueTag,
} from './contract-adapter';

const CHAT_ID_TAKEN = 'chat_id is already used by another person';

/** PersonRepository's reads of one person and its writes: versions, uniqueness, bulk insert. */
export function describePersonRepositoryContract(adapter: () => ContractAdapter): void {
  const people = () => adapter().repositories.people;

  describe('PersonRepository reading one person', () => {
    it('finds a person by id, admins included, and null for an unknown id', async () => {
      const tag = uniqueTag();
      await people().insertMany([newPerson({ lastName: tag, role: 'admin', plannerId: 'planner-7' })]);
      const [id] = await idsTagged(adapter(), tag);

      expect(await people().findById(id)).toEqual({
        id,
        role: 'admin',
        firstName: 'Ada',
        lastName: tag,
        chatId: null,
        plannerId: 'planner-7',
        memberNumber: null,
        erased: false,
        version: 1,
        contacts: [],
        memberships: [],
      });
      expect(await people().findByIdForUpdate(id)).toMatchObject({ id, role: 'admin' });
      expect(await people().findById(2_000_000_000)).toBeNull();
      expect(await people().findByIdForUpdate(2_000_000_000)).toBeNull();
    });

    it('finds the fields of a person by id, as findById has them without contacts and memberships', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({
          lastName: tag,
          chatId: `${tag}-c`,
          plannerId: 'planner',
          memberNumber: `${tag}-m`,
          contacts: [{ kind: 'email', value: `${tag}@example.org`, label: null }],
        }),
        newPerson({ lastName: `${tag} admin`, role: 'admin' }),
      ]);
      const [id, adminId] = await idsTagged(adapter(), tag);
      await people().erase([id]);

      for (const each of [id, adminId]) {
        const {
          contacts: _contacts,
          memberships: _memberships,
          ...fields
        } = (await people().findById(each))!;
        expect(await people().findFieldsById(each)).toEqual(fields);
      }
      expect(await people().findFieldsById(adminId)).toMatchObject({
        role: 'admin',
        erased: false,
        version: 1,
      });
      expect(await people().findFieldsById(id)).toMatchObject({ erased: true, version: 2 });
      expect(await people().findFieldsById(2_000_000_000)).toBeNull();
    });

    it('hands out copies: changing a result changes nothing stored', async () => {
      const tag = uniqueTag();
      await people().insertMany([newPerson({ lastName: tag })]);
      const [id] = await memberIdsTagged(adapter(), tag);

      const person = await people().findById(id);
      person!.firstName = 'Changed';

      expect(await people().findById(id)).toMatchObject({ firstName: 'Ada' });
    });
  });

  describe('PersonRepository update', () => {
    it('changes the given fields, increments the version and leaves the rest', async () => {
      const tag = uniqueTag();
      await people().insertMany([newPerson({ lastName: tag, chatId: `${tag}-old`, plannerId: 'p' })]);
      const [id] = await memberIdsTagged(adapter(), tag);

      await people().update(id, { firstName: 'Augusta', chatId: null });
      expect(await people().findById(id)).toMatchObject({
        firstName: 'Augusta',
        lastName: tag,
        chatId: null,
        plannerId: 'p',
        version: 2,
      });
      await people().update(id, { chatId: `${tag}-new` });
      expect(await people().findById(id)).toMatchObject({ chatId: `${tag}-new`, version: 3 });
    });

    it('refuses a chat_id another member has with Conflict, changing nothing', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({ lastName: `${tag} a`, chatId: `${tag}-taken` }),
        newPerson({ lastName: `${tag} b` }),
      ]);
      const [, idB] = await memberIdsTagged(adapter(), tag);

      const attempt = people().update(idB, { firstName: 'Changed', chatId: `${tag}-taken` });

      await expect(attempt).rejects.toBeInstanceOf(Conflict);
      await expect(attempt).rejects.toThrow(CHAT_ID_TAKEN);
      expect(await people().findById(idB)).toMatchObject({ firstName: 'Ada', chatId: null, version: 1 });
    });

    it('keeps chat_id unique among members only: an admin neither blocks a member nor is blocked', async () => {
      const tag = uniqueTag();
      const shared = `${tag}-shared`;
      await people().insertMany([newPerson({ lastName: `${tag} admin`, role: 'admin', chatId: shared })]);
      expect(await people().chatIdsInUse([shared])).toEqual([]);
      await people().insertMany([
        newPerson({ lastName: `${tag} ann`, chatId: shared }),
        newPerson({ lastName: `${tag} admin2`, role: 'admin', chatId: shared }),
        newPerson({ lastName: `${tag} bob` }),
      ]);
      const [admin, ann, , bob] = await idsTagged(adapter(), tag);
      expect(await people().chatIdsInUse([shared])).toEqual([shared]);

      await expect(people().update(bob, { chatId: shared })).rejects.toThrow(CHAT_ID_TAKEN);
      await people().update(admin, { firstName: 'Still admin', chatId: shared });
      await people().update(ann, { chatId: null });
      expect(await people().chatIdsInUse([shared])).toEqual([]);
      await people().update(bob, { chatId: shared });
      expect(await people().findById(bob)).toMatchObject({ chatId: shared });
    });

    it("keeps a person's own chat_id without a conflict", async () => {
      const tag = uniqueTag();
      await people().insertMany([newPerson({ lastName: tag, chatId: `${tag}-mine` })]);
      const [id] = await memberIdsTagged(adapter(), tag);

      await people().update(id, { chatId: `${tag}-mine` });

      expect(await people().findById(id)).toMatchObject({ chatId: `${tag}-mine`, version: 2 });
    });

    it('reports an unknown person with NotFound', async () => {
      await expect(people().update(2_000_000_000, { firstName: 'X' })).rejects.toBeInstanceOf(NotFound);
    });
  });

  describe('PersonRepository insertMany', () => {
    it('creates each club once by name and reuses existing ones', async () => {
      const tag = uniqueTag();
      const club = `Astronomers ${tag}`;
      const member = (name: string) =>
        newPerson({
          lastName: `${tag} ${name}`,
          memberships: [{ club, kind: null, startDate: '2024-01-01', endDate: null }],
        });
      await people().insertMany([member('a'), member('b')]);
      await people().insertMany([member('c')]);

      const found = await people().search({ filter: { lastName: tag }, today: TODAY }, 10);
      const clubs = found.map((p) => p.memberships[0].club);

      expect(clubs.map((c) => c.name)).toEqual([club, club, club]);
      expect(new Set(clubs.map((c) => c.id)).size).toBe(1);
    });

    it('gives ids in the order of the input, keeping names, identifiers, contacts and memberships', async () => {
      const tag = uniqueTag();
      const input = Array.from({ length: 12 }, (_, i) =>
        newPerson({
          firstName: `F${i}`,
          lastName: `${tag} ${i}`,
          chatId: i % 2 === 0 ? `${tag}-${i}` : null,
          plannerId: i % 3 === 0 ? `p${i}` : null,
          contacts: [{ kind: 'email', value: `p${i}@example.org`, label: i === 0 ? 'home' : null }],
          memberships: [
            { club: `Club ${tag} ${i % 2}`, kind: 'full', startDate: '2023-03-01', endDate: '2025-02-28' },
          ],
        }),
      );
      await people().insertMany(input);

      const found = await people().search({ filter: { lastName: tag }, today: TODAY }, 100);

      expect(found.map((p) => p.id)).toEqual([...found.map((p) => p.id)].sort((a, b) => a - b));
      expect(
        found.map((p) => [p.firstName, p.chatId, p.plannerId, p.version, p.contacts, p.memberships]),
      ).toEqual(
        input.map((p) => [
          p.firstName,
          p.chatId,
          p.plannerId,
          1,
          p.contacts.map((c) => ({ id: expect.any(Number), ...c })),
          p.memberships.map((m) => ({
            id: expect.any(Number),
            club: { id: expect.any(Number), name: m.club },
            kind: m.kind,
            startDate: m.startDate,
            endDate: m.endDate,
          })),
        ]),
      );
    });

    it('refuses a chat_id a member has, or one two new members share, with Conflict', async () => {
      const tag = uniqueTag();
      await people().insertMany([newPerson({ lastName: `${tag} first`, chatId: `${tag}-dup` })]);

      const taken = people().insertMany([newPerson({ lastName: `${tag} dup`, chatId: `${tag}-dup` })]);
      await expect(taken).rejects.toBeInstanceOf(Conflict);
      await expect(taken).rejects.toThrow(CHAT_ID_TAKEN);
      const twice = people().insertMany([
        newPerson({ lastName: `${tag} one`, chatId: `${tag}-twice` }),
        newPerson({ lastName: `${tag} two`, chatId: `${tag}-twice` }),
      ]);
      await expect(twice).rejects.toBeInstanceOf(Conflict);
      // Admins may share one with anybody.
      await people().insertMany([
        newPerson({ lastName: `${tag} admin`, role: 'admin', chatId: `${tag}-dup` }),
        newPerson({ lastName: `${tag} admin2`, role: 'admin', chatId: `${tag}-dup` }),
      ]);
      expect((await idsTagged(adapter(), tag)).length).toBe(3);
    });

    it('reports which chat_ids members have, in any order', async () => {
      const tag = uniqueTag();
      await people().insertMany([
        newPerson({ lastName: tag, chatId: `${tag}-b` }),
        newPerson({ lastName: tag, chatId: `${tag}-a` }),
      ]);

      const used = await people().chatIdsInUse([`${tag}-a`, `${tag}-free`, `${tag}-b`]);

      expect(used.sort()).toEqual([`${tag}-a`, `${tag}-b`]);
      expect(await people().chatIdsInUse([])).toEqual([]);
    });

    it('counts every person, admins included', async () => {
      const before = await people().count();

      await people().insertMany([newPerson({ role: 'admin' }), newPerson()]);

      expect(await people().count()).toBe(before + 2);
    });
  });
}
