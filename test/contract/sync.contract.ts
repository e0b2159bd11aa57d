import { Conflict } from '../../src/domain/errors';
import { type ContractAdapter, collect, idsTagged, newPerson, TODAY, uniqueTag } from './contract-adapter';

const MEMBERSHIP = { club: 'Contract Club', kind: 'full', startDate: '2020-01-01', endDate: null };

/**
 * What the import as a sync and the erasure (SPEC §6, §8) ask of the ports: member numbers,
 * identities, replacements that keep unchanged children, erasure and audit redaction.
 */
export function describeSyncContract(adapter: () => ContractAdapter): void {
  const repositories = () => adapter().repositories;
  const people = () => repositories().people;

  describe('PersonRepository for the sync', () => {
    it('answers the ids it inserted, in order, and stores member numbers, unique across everyone', async () => {
      const tag = uniqueTag();
      const ids = await people().insertMany([
        newPerson({ lastName: `${tag} a`, memberNumber: `${tag}-1` }),
        newPerson({ lastName: `${tag} b`, role: 'admin', memberNumber: `${tag}-2` }),
      ]);

      expect(ids).toEqual(await idsTagged(adapter(), tag));
      expect(await people().findById(ids[1])).toMatchObject({ memberNumber: `${tag}-2`, erased: false });
      await expect(
        people().insertMany([newPerson({ lastName: tag, memberNumber: `${tag}-2` })]),
      ).rejects.toBeInstanceOf(Conflict);
      const found = await people().search({ filter: { memberNumber: `${tag}-1` }, today: TODAY }, 10);
      expect(found.map((p) => p.id)).toEqual([ids[0]]);
    });

    it('finds identities by id, member number and members’ chat_ids, and the members not named', async () => {
      const tag = uniqueTag();
      const [a, b, admin] = await people().insertMany([
        newPerson({ lastName: tag, memberNumber: `${tag}-a` }),
        newPerson({ lastName: tag, chatId: `${tag}-chat` }),
        newPerson({ lastName: tag, role: 'admin', chatId: `${tag}-admin-chat` }),
      ]);

      const found = await people().findIdentities({
        ids: [a],
        memberNumbers: [`${tag}-a`],
        chatIds: [`${tag}-chat`, `${tag}-admin-chat`],
      });

      expect(found).toEqual([
        {
          id: a,
          role: 'member',
          erased: false,
          chatId: null,
          memberNumber: `${tag}-a`,
          hasAccount: false,
          firstName: 'Ada',
          lastName: tag,
        },
        {
          id: b,
          role: 'member',
          erased: false,
          chatId: `${tag}-chat`,
          memberNumber: null,
          hasAccount: false,
          firstName: 'Ada',
          lastName: tag,
        },
      ]);
      const others = (await people().membersOtherThan([a])).map((p) => p.id);
      expect(others).toContain(b);
      expect(others).not.toContain(a);
      expect(others).not.toContain(admin);
    });

    it('replaces fields and children, keeping the ids of the children it does not remove', async () => {
      const tag = uniqueTag();
      const [id] = await people().insertMany([
        newPerson({
          lastName: tag,
          chatId: `${tag}-c`,
          contacts: [
            { kind: 'email', value: 'keep@example.org', label: null },
            { kind: 'phone', value: '123', label: null },
          ],
          memberships: [MEMBERSHIP],
        }),
      ]);
      const before = await people().findById(id);
      const phone = before?.contacts.find((c) => c.kind === 'phone');

      await people().replaceMany([
        {
          id,
          fields: { firstName: 'Grace', chatId: null, memberNumber: `${tag}-n` },
          changeContacts: [],
          removeContacts: [phone?.id as number],
          addContacts: [{ kind: 'address', value: '1 Road\nTown', label: 'home' }],
          removeMemberships: [],
          addMemberships: [
            { club: 'Other Club', kind: null, startDate: '2021-01-01', endDate: '2021-12-31' },
          ],
        },
      ]);

      const after = await people().findById(id);
      expect(after).toMatchObject({
        firstName: 'Grace',
        lastName: tag,
        chatId: null,
        memberNumber: `${tag}-n`,
        version: 2,
      });
      expect(after?.contacts.map((c) => [c.kind, c.value])).toEqual([
        ['email', 'keep@example.org'],
        ['address', '1 Road\nTown'],
      ]);
      expect(after?.contacts[0].id).toBe(before?.contacts[0].id);
      expect(after?.memberships[0]).toEqual(before?.memberships[0]);
      expect(after?.memberships[1].club.name).toBe('Other Club');
      const byName = await people().search(
        { filter: { firstName: 'grace', lastName: tag }, today: TODAY },
        10,
      );
      expect(byName.map((p) => p.id)).toEqual([id]);
    });

    it('finds the members sharing a folded email or both folded names, never admins or erased people', async () => {
      const tag = uniqueTag().toLowerCase();
      const email = (local: string) => ({
        kind: 'email' as const,
        value: `${local}.${tag}@Example.org`,
        label: null,
      });
      const [byEmail, byNames, admin, gone] = await people().insertMany([
        newPerson({ firstName: 'Straße', lastName: tag, contacts: [email('a'), email('b')] }),
        newPerson({ firstName: 'Σίσυφος', lastName: `${tag}x` }),
        newPerson({ firstName: 'Admin', lastName: `${tag}y`, role: 'admin', contacts: [email('c')] }),
        newPerson({ firstName: 'Gone', lastName: `${tag}z`, contacts: [email('d')] }),
      ]);
      await people().erase([gone]);

      const found = await people().findLookalikes({
        emails: [`b.${tag}@example.org`, `c.${tag}@example.org`, `d.${tag}@example.org`],
        names: [
          { first: 'σίσυφοσ', last: `${tag}x` },
          { first: 'admin', last: `${tag}y` },
          { first: 'strasse', last: 'nobody' },
        ],
      });

      expect(found).toEqual([
        {
          id: byEmail,
          firstName: 'Straße',
          lastName: tag,
          foldedFirstName: 'strasse',
          foldedLastName: tag,
          foldedEmails: [`b.${tag}@example.org`],
        },
        {
          id: byNames,
          firstName: 'Σίσυφος',
          lastName: `${tag}x`,
          foldedFirstName: 'σίσυφοσ',
          foldedLastName: `${tag}x`,
          foldedEmails: [],
        },
      ]);
      expect(await people().findById(admin)).toMatchObject({
        role: 'admin',
        contacts: [expect.objectContaining({ value: `c.${tag}@Example.org` })],
      });
    });

    it('changes a contact in place, keeping its id and label, and its email matchable by the new value', async () => {
      const tag = uniqueTag().toLowerCase();
      const [id] = await people().insertMany([
        newPerson({
          lastName: tag,
          contacts: [
            { kind: 'email', value: `old.${tag}@example.org`, label: 'home' },
            { kind: 'email', value: `other.${tag}@example.org`, label: null },
          ],
        }),
      ]);
      const [first, second] = (await people().findById(id))?.contacts ?? [];

      await people().replaceMany([
        {
          id,
          fields: {},
          changeContacts: [{ id: first.id, value: `New.${tag}@example.org` }],
          removeContacts: [],
          addContacts: [],
          removeMemberships: [],
          addMemberships: [],
        },
      ]);

      expect((await people().findById(id))?.contacts).toEqual([
        { id: first.id, kind: 'email', value: `New.${tag}@example.org`, label: 'home' },
        second,
      ]);
      const found = await people().search({ filter: { email: `NEW.${tag}@EXAMPLE.ORG` }, today: TODAY }, 10);
      expect(found.map((p) => p.id)).toEqual([id]);
    });

    it('lets two people swap chat_ids once they are released, and refuses a taken one', async () => {
      const tag = uniqueTag();
      const [a, b] = await people().insertMany([
        newPerson({ lastName: tag, chatId: `${tag}-a` }),
        newPerson({ lastName: tag, chatId: `${tag}-b` }),
      ]);
      const swap = (id: number, chatId: string) => ({
        id,
        fields: { chatId },
        changeContacts: [],
        removeContacts: [],
        addContacts: [],
        removeMemberships: [],
        addMemberships: [],
      });
      await expect(people().replaceMany([swap(a, `${tag}-b`)])).rejects.toBeInstanceOf(Conflict);

      await adapter().unitOfWork.run(async (tx) => {
        await tx.people.releaseIdentifiers([a, b], []);
        await tx.people.replaceMany([swap(a, `${tag}-b`), swap(b, `${tag}-a`)]);
      });

      expect((await people().findById(a))?.chatId).toBe(`${tag}-b`);
      expect((await people().findById(b))?.chatId).toBe(`${tag}-a`);
    });

    it('erases: names "erased", identifiers null, contacts gone, memberships kept, never shown again', async () => {
      const tag = uniqueTag();
      const [id] = await people().insertMany([
        newPerson({
          lastName: tag,
          chatId: `${tag}-c`,
          plannerId: 'p',
          memberNumber: `${tag}-n`,
          contacts: [{ kind: 'email', value: `${tag}@example.org`, label: null }],
          memberships: [MEMBERSHIP],
        }),
      ]);

      await people().erase([id]);

      expect(await people().findById(id)).toMatchObject({
        firstName: 'erased',
        lastName: 'erased',
        chatId: null,
        plannerId: null,
        memberNumber: null,
        erased: true,
        contacts: [],
        memberships: [expect.objectContaining({ startDate: '2020-01-01' })],
      });
      expect(await people().search({ filter: {}, today: TODAY, after: id - 1 }, 1)).not.toEqual([
        expect.objectContaining({ id }),
      ]);
      expect((await collect(people().streamAll())).map((p) => p.id)).not.toContain(id);
      expect((await people().membersOtherThan([])).map((p) => p.id)).not.toContain(id);
    });

    it('finds the members without an account whose memberships all ended before a date', async () => {
      const tag = uniqueTag();
      const ended = (endDate: string) => ({ ...MEMBERSHIP, startDate: '2001-01-01', endDate });
      const [left, open, none] = await people().insertMany([
        newPerson({ lastName: tag, memberships: [ended('2003-01-01'), ended('2004-01-01')] }),
        newPerson({ lastName: tag, memberships: [ended('2003-01-01'), MEMBERSHIP] }),
        newPerson({ lastName: tag }),
      ]);
      const ids = (await people().membersWhoLeftBefore('2005-01-01')).map((p) => p.id);
      expect(ids).toContain(left);
      expect(ids).not.toContain(open);
      expect(ids).not.toContain(none);
      expect((await people().membersWhoLeftBefore('2004-01-01')).map((p) => p.id)).not.toContain(left);
    });
  });

  describe('AuditLog redaction', () => {
    it('replaces the values of entries about the people, and only those', async () => {
      const tag = uniqueTag();
      const [id, other] = await people().insertMany([
        newPerson({ lastName: tag }),
        newPerson({ lastName: tag }),
      ]);
      const entry = (subjectId: number) => ({
        actorAccountId: null,
        actorKeyId: null,
        action: 'person.update',
        subjectType: 'person',
        subjectId,
        field: 'last_name',
        oldValue: 'Old',
        newValue: null,
      });
      await repositories().audit.record([entry(id), entry(other)]);

      await repositories().audit.redactAbout([id]);

      expect(
        (await repositories().audit.list({ personId: id })).map((e) => [e.oldValue, e.newValue]),
      ).toEqual([['[erased]', null]]);
      expect((await repositories().audit.list({ personId: other }))[0].oldValue).toBe('Old');
    });
  });
}
