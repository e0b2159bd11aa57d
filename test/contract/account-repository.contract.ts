import { Conflict, NotFound } from '../../src/domain/errors';
import { type ContractAdapter, memberIdsTagged, newPerson, uniqueTag } from './contract-adapter';

/** AccountRepository: credentials live on a person; usernames are unique. */
export function describeAccountRepositoryContract(adapter: () => ContractAdapter): void {
  const repositories = () => adapter().repositories;

  describe('AccountRepository', () => {
    it('creates an administrator person for a new account, named after the username by default', async () => {
      const username = uniqueTag();

      const account = await repositories().accounts.create({
        username,
        passwordHash: 'h1',
        permissions: ['read'],
      });

      expect(account).toEqual({
        personId: expect.any(Number),
        username,
        passwordHash: 'h1',
        role: 'admin',
        permissions: ['read'],
        disabled: false,
      });
      expect(await repositories().people.findById(account.personId)).toMatchObject({
        role: 'admin',
        firstName: username,
        lastName: 'Account',
        version: 1,
      });
      expect(await repositories().accounts.findByUsername(username)).toEqual(account);
      expect(await repositories().accounts.findByPersonId(account.personId)).toEqual(account);
    });

    it('creates a member person with the names and role given', async () => {
      const username = uniqueTag();

      const account = await repositories().accounts.create({
        username,
        passwordHash: 'h',
        permissions: [],
        firstName: 'Bot',
        lastName: 'Chat',
        role: 'member',
      });

      expect(account).toMatchObject({ role: 'member', permissions: [] });
      expect(await repositories().people.findById(account.personId)).toMatchObject({
        role: 'member',
        firstName: 'Bot',
        lastName: 'Chat',
      });
    });

    it('attaches credentials to an existing person, keeping the role unless one is given', async () => {
      const tag = uniqueTag();
      await repositories().people.insertMany([
        newPerson({ lastName: `${tag} a` }),
        newPerson({ lastName: `${tag} b` }),
      ]);
      const [idA, idB] = await memberIdsTagged(adapter(), tag);

      const kept = await repositories().accounts.create({
        username: `${tag}a`,
        passwordHash: 'h',
        permissions: ['read'],
        personId: idA,
      });
      const changed = await repositories().accounts.create({
        username: `${tag}b`,
        passwordHash: 'h',
        permissions: ['read'],
        personId: idB,
        role: 'admin',
      });

      expect(kept).toMatchObject({ personId: idA, role: 'member', username: `${tag}a` });
      expect(changed).toMatchObject({ personId: idB, role: 'admin' });
      // The person changed: a cached copy of it must not stay valid.
      expect(await repositories().people.findById(idA)).toMatchObject({ lastName: `${tag} a`, version: 2 });
    });

    it('refuses a taken username and a person who has an account with Conflict, an unknown person with NotFound', async () => {
      const username = uniqueTag();
      const first = await repositories().accounts.create({ username, passwordHash: 'h', permissions: [] });

      const sameName = repositories().accounts.create({ username, passwordHash: 'h', permissions: [] });
      await expect(sameName).rejects.toBeInstanceOf(Conflict);
      await expect(sameName).rejects.toThrow('username is already taken');
      const secondAccount = { username: uniqueTag(), passwordHash: 'h', permissions: [] };
      await expect(
        repositories().accounts.create({ ...secondAccount, personId: first.personId }),
      ).rejects.toBeInstanceOf(Conflict);
      await expect(
        repositories().accounts.create({ ...secondAccount, personId: 2_000_000_000 }),
      ).rejects.toBeInstanceOf(NotFound);
      expect(await repositories().accounts.findByUsername(secondAccount.username)).toBeNull();
    });

    it('finds no account for an unknown username or a person without credentials', async () => {
      const tag = uniqueTag();
      await repositories().people.insertMany([newPerson({ lastName: tag })]);
      const [id] = await memberIdsTagged(adapter(), tag);

      expect(await repositories().accounts.findByUsername(uniqueTag())).toBeNull();
      expect(await repositories().accounts.findByPersonId(id)).toBeNull();
    });

    it('changes the password hash, permissions and disabled flag, and only those given', async () => {
      const username = uniqueTag();
      const { personId } = await repositories().accounts.create({
        username,
        passwordHash: 'old',
        permissions: ['read'],
      });

      await repositories().accounts.update(personId, { passwordHash: 'new', permissions: ['read', 'write'] });
      await repositories().accounts.update(personId, { disabled: true });

      expect(await repositories().accounts.findByUsername(username)).toMatchObject({
        passwordHash: 'new',
        permissions: ['read', 'write'],
        disabled: true,
      });
    });

    it('reports changing an account that does not exist with NotFound', async () => {
      const tag = uniqueTag();
      await repositories().people.insertMany([newPerson({ lastName: tag })]);
      const [id] = await memberIdsTagged(adapter(), tag);

      await expect(repositories().accounts.update(id, { disabled: true })).rejects.toBeInstanceOf(NotFound);
      await expect(repositories().accounts.update(2_000_000_000, { disabled: true })).rejects.toBeInstanceOf(
        NotFound,
      );
    });

    it('lists accounts by username with their count of keys neither revoked nor expired', async () => {
      const tag = uniqueTag();
      const now = new Date('2025-06-01T00:00:00Z');
      const b = await repositories().accounts.create({
        username: `${tag}-b`,
        passwordHash: 'h',
        permissions: ['read'],
      });
      const a = await repositories().accounts.create({
        username: `${tag}-a`,
        passwordHash: 'h',
        permissions: [],
        role: 'member',
      });
      const key = (suffix: string, expiresAt: Date | null) =>
        repositories().keys.create({
          accountId: b.personId,
          name: null,
          prefix: 'mdk_x',
          tokenHash: `${tag}${suffix}`,
          permissions: ['read'],
          createdAt: now,
          expiresAt,
        });
      await key('1', null);
      await key('2', new Date('2025-07-01T00:00:00Z'));
      await key('3', new Date('2025-05-01T00:00:00Z'));
      await key('4', now);
      await repositories().keys.revoke((await key('5', null)).id, now);

      const mine = (await repositories().accounts.list(now)).filter((s) => s.username.startsWith(tag));

      expect(mine).toEqual([
        {
          personId: a.personId,
          username: `${tag}-a`,
          role: 'member',
          permissions: [],
          disabled: false,
          activeKeyCount: 0,
        },
        {
          personId: b.personId,
          username: `${tag}-b`,
          role: 'admin',
          permissions: ['read'],
          disabled: false,
          activeKeyCount: 2,
        },
      ]);
    });
  });
}
