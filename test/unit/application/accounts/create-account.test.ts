import { Conflict, InvalidInput, NotFound } from '../../../../src/domain/errors';
import { addPerson } from '../../support/directory-fixtures';
import { accountsFixture, auditEntries } from '../../support/accounts-fixture';

const PASSWORD = 'long enough';

describe('CreateAccount', () => {
  it('creates a new member with names, hashing the password and granting the permissions asked for', async () => {
    const { directory, createAccount } = accountsFixture();

    const account = await createAccount.execute({
      username: 'ada',
      password: PASSWORD,
      permissions: ['write', 'read', 'read'],
      firstName: ' Ada ',
      lastName: 'Byron',
    });

    expect(account).toEqual({
      personId: account.personId,
      username: 'ada',
      role: 'member',
      permissions: ['read', 'write'],
      disabled: false,
    });
    expect(account).not.toHaveProperty('passwordHash');
    const stored = await directory.accounts.findByUsername('ada');
    expect(stored?.passwordHash).toBe(`hashed:${PASSWORD}`);
    const person = await directory.people.findById(account.personId);
    expect(person).toMatchObject({ firstName: 'Ada', lastName: 'Byron', role: 'member' });
  });

  it('tells the change feed about a new member, and not about a new admin or an existing person', async () => {
    const { directory, createAccount } = accountsFixture();
    const existing = await addPerson(directory);

    const member = await createAccount.execute({
      username: 'ada',
      password: PASSWORD,
      permissions: [],
      firstName: 'Ada',
      lastName: 'Byron',
    });
    await createAccount.execute({ username: 'bot', password: PASSWORD, permissions: ['read'] });
    await createAccount.execute({
      username: 'old',
      password: PASSWORD,
      permissions: [],
      personId: existing.id,
    });

    const { changes } = await directory.feed.page(0, 100);
    expect(changes.map((c) => [c.type, c.personId, c.fields, c.byKeyId])).toEqual([
      ['person.created', member.personId, null, null],
    ]);
  });

  it('makes an account without a person behind it an admin, named after the username', async () => {
    const { directory, createAccount } = accountsFixture();

    const account = await createAccount.execute({
      username: 'chatbot',
      password: PASSWORD,
      permissions: ['read'],
    });

    expect(account.role).toBe('admin');
    expect((await directory.people.findById(account.personId))?.firstName).toBe('chatbot');
  });

  it('makes a new named person an admin with admin set', async () => {
    const { createAccount } = accountsFixture();
    const account = await createAccount.execute({
      username: 'sec',
      password: PASSWORD,
      permissions: [],
      firstName: 'Margaret',
      lastName: 'Hale',
      admin: true,
    });
    expect(account).toMatchObject({ role: 'admin', permissions: [] });
  });

  it('attaches credentials to an existing person, keeping the role unless admin is set', async () => {
    const { directory, createAccount } = accountsFixture();
    const member = await addPerson(directory);
    const other = await addPerson(directory);

    const kept = await createAccount.execute({
      username: 'member1',
      password: PASSWORD,
      permissions: ['read'],
      personId: member.id,
    });
    const promoted = await createAccount.execute({
      username: 'member2',
      password: PASSWORD,
      permissions: [],
      personId: other.id,
      admin: true,
    });

    expect(kept).toMatchObject({ personId: member.id, role: 'member' });
    expect(promoted).toMatchObject({ personId: other.id, role: 'admin' });
  });

  it('refuses an unknown person, a person with an account, and a username taken', async () => {
    const { directory, createAccount } = accountsFixture();
    const person = await addPerson(directory);
    await createAccount.execute({
      username: 'first',
      password: PASSWORD,
      permissions: [],
      personId: person.id,
    });

    await expect(
      createAccount.execute({ username: 'x', password: PASSWORD, permissions: [], personId: 9999 }),
    ).rejects.toThrow(NotFound);
    await expect(
      createAccount.execute({ username: 'second', password: PASSWORD, permissions: [], personId: person.id }),
    ).rejects.toThrow(/already has the account "first"/);
    await expect(
      createAccount.execute({ username: 'first', password: PASSWORD, permissions: [] }),
    ).rejects.toThrow(Conflict);
  });

  it('refuses a short password, a bad username and an empty name, listing every problem', async () => {
    const { directory, createAccount } = accountsFixture();
    const before = await directory.people.count();

    const failure = await createAccount
      .execute({ username: 'has space', password: 'short', permissions: [], firstName: '', lastName: 'L' })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(InvalidInput);
    expect((failure as InvalidInput).messages).toEqual([
      expect.stringMatching(/username/),
      expect.stringMatching(/at least 8 characters/),
      expect.stringMatching(/first name must not be empty/),
    ]);
    expect(await directory.people.count()).toBe(before);
  });

  it('writes who (the operator: no account) and what to the audit log, never the password', async () => {
    const { directory, createAccount } = accountsFixture();

    const account = await createAccount.execute({
      username: 'ada',
      password: PASSWORD,
      permissions: ['read'],
    });

    const entries = await auditEntries(directory);
    expect(entries.map((e) => [e.action, e.field, e.oldValue, e.newValue])).toEqual(
      expect.arrayContaining([
        ['account.create', 'username', null, 'ada'],
        ['account.create', 'permissions', null, 'read'],
        ['account.create', 'role', null, 'admin'],
      ]),
    );
    for (const entry of entries) {
      expect(entry).toMatchObject({
        actorAccountId: null,
        actorKeyId: null,
        subjectType: 'account',
        subjectId: account.personId,
      });
    }
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
  });

  it('a member made an admin is person.removed in the feed; an admin made an admin again is nothing', async () => {
    const { directory, createAccount } = accountsFixture();
    const member = await addPerson(directory);
    const admin = await addPerson(directory, { role: 'admin' });

    await createAccount.execute({
      username: 'op',
      password: PASSWORD,
      permissions: [],
      personId: member.id,
      admin: true,
    });
    await createAccount.execute({
      username: 'op2',
      password: PASSWORD,
      permissions: [],
      personId: admin.id,
      admin: true,
    });

    const { changes } = await directory.feed.page(0, 100);
    expect(changes.map((c) => [c.type, c.personId, c.person])).toEqual([
      ['person.removed', member.id, expect.objectContaining({ role: 'admin' })],
    ]);
  });
});
