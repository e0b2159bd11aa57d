import type { Transaction } from '../../../src/application/ports/unit-of-work';
import { Conflict, NotFound } from '../../../src/domain/errors';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { openTestDatabase, testDatabases } from '../../support/databases';
import { idsTagged, newPerson, uniqueTag } from './fixtures';

describe.each(testDatabases)('TypeOrmAccountRepository on $name', (target) => {
  let database: Database;
  let repositories: Transaction;

  beforeAll(async () => {
    database = await openTestDatabase(target);
    repositories = createRepositories(database.dataSource.manager);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('creates an administrator person for a new account, named after the username by default', async () => {
    const username = uniqueTag();

    const account = await repositories.accounts.create({
      username,
      passwordHash: 'h1',
      permissions: ['read'],
    });
    const person = await repositories.people.findById(account.personId);

    expect(account).toEqual({
      personId: expect.any(Number),
      username,
      passwordHash: 'h1',
      role: 'admin',
      permissions: ['read'],
      disabled: false,
    });
    expect(person).toMatchObject({ role: 'admin', firstName: username, lastName: 'Account' });
    expect(await repositories.accounts.findByUsername(username)).toEqual(account);
    expect(await repositories.accounts.findByPersonId(account.personId)).toEqual(account);
  });

  it('creates a member person with the names and role given', async () => {
    const username = uniqueTag();

    const account = await repositories.accounts.create({
      username,
      passwordHash: 'h',
      permissions: [],
      firstName: 'Bot',
      lastName: 'Chat',
      role: 'member',
    });

    expect(account.permissions).toEqual([]);
    expect(await repositories.people.findById(account.personId)).toMatchObject({
      role: 'member',
      firstName: 'Bot',
      lastName: 'Chat',
    });
  });

  it('attaches credentials to an existing person, keeping the role unless one is given', async () => {
    const tag = uniqueTag();
    await repositories.people.insertMany([
      newPerson({ lastName: `${tag} a` }),
      newPerson({ lastName: `${tag} b` }),
    ]);
    const [idA, idB] = await idsTagged(database, tag);

    const kept = await repositories.accounts.create({
      username: `${tag}a`,
      passwordHash: 'h',
      permissions: ['read'],
      personId: idA,
    });
    const changed = await repositories.accounts.create({
      username: `${tag}b`,
      passwordHash: 'h',
      permissions: ['read'],
      personId: idB,
      role: 'admin',
    });

    expect(kept).toMatchObject({ personId: idA, role: 'member' });
    expect(changed).toMatchObject({ personId: idB, role: 'admin' });
    expect((await repositories.people.findById(idA))?.lastName).toBe(`${tag} a`);
  });

  it('refuses a taken username, a person who already has an account, and an unknown person', async () => {
    const username = uniqueTag();
    const first = await repositories.accounts.create({ username, passwordHash: 'h', permissions: [] });

    const sameName = repositories.accounts.create({ username, passwordHash: 'h', permissions: [] });
    await expect(sameName).rejects.toBeInstanceOf(Conflict);
    await expect(sameName).rejects.toThrow('username is already taken');
    await expect(
      repositories.accounts.create({
        username: uniqueTag(),
        passwordHash: 'h',
        permissions: [],
        personId: first.personId,
      }),
    ).rejects.toBeInstanceOf(Conflict);
    await expect(
      repositories.accounts.create({
        username: uniqueTag(),
        passwordHash: 'h',
        permissions: [],
        personId: 2_000_000_000,
      }),
    ).rejects.toBeInstanceOf(NotFound);
  });

  it('finds no account for an unknown username or a person without credentials', async () => {
    const tag = uniqueTag();
    await repositories.people.insertMany([newPerson({ lastName: tag })]);
    const [id] = await idsTagged(database, tag);

    expect(await repositories.accounts.findByUsername(uniqueTag())).toBeNull();
    expect(await repositories.accounts.findByPersonId(id)).toBeNull();
  });

  it('changes the password hash, permissions and disabled flag', async () => {
    const username = uniqueTag();
    const { personId } = await repositories.accounts.create({
      username,
      passwordHash: 'old',
      permissions: ['read'],
    });

    await repositories.accounts.update(personId, { passwordHash: 'new', permissions: ['read', 'write'] });
    await repositories.accounts.update(personId, { disabled: true });

    expect(await repositories.accounts.findByUsername(username)).toMatchObject({
      passwordHash: 'new',
      permissions: ['read', 'write'],
      disabled: true,
    });
  });

  it('reports changing an account that does not exist with NotFound', async () => {
    const tag = uniqueTag();
    await repositories.people.insertMany([newPerson({ lastName: tag })]);
    const [id] = await idsTagged(database, tag);

    await expect(repositories.accounts.update(id, { disabled: true })).rejects.toBeInstanceOf(NotFound);
  });

  it('lists accounts by username with their count of active keys', async () => {
    const tag = uniqueTag();
    const now = new Date('2025-06-01T00:00:00Z');
    const b = await repositories.accounts.create({
      username: `${tag}-b`,
      passwordHash: 'h',
      permissions: ['read'],
    });
    const a = await repositories.accounts.create({
      username: `${tag}-a`,
      passwordHash: 'h',
      permissions: [],
      role: 'member',
    });
    const key = (tokenHash: string, expiresAt: Date | null) =>
      repositories.keys.create({
        accountId: b.personId,
        name: null,
        prefix: 'mdk_x',
        tokenHash: `${tag}${tokenHash}`,
        permissions: ['read'],
        createdAt: now,
        expiresAt,
      });
    await key('1', null);
    await key('2', new Date('2025-07-01T00:00:00Z'));
    await key('3', new Date('2025-05-01T00:00:00Z'));
    const revoked = await key('4', null);
    await repositories.keys.revoke(revoked.id, now);

    const mine = (await repositories.accounts.list(now)).filter((s) => s.username.startsWith(tag));

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
