import type { Transaction } from '../../../src/application/ports/unit-of-work';
import type { NewAuditEntry } from '../../../src/domain/audit-entry';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { openTestDatabase, testDatabases } from '../../support/databases';

describe.each(testDatabases)('TypeOrmAuditLog on $name', (target) => {
  let database: Database;
  let repositories: Transaction;
  let nextId = 1_000_000;

  beforeAll(async () => {
    database = await openTestDatabase(target);
    repositories = createRepositories(database.dataSource.manager);
  });

  afterAll(async () => {
    await database?.close();
  });

  function entry(overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
    return {
      actorAccountId: null,
      actorKeyId: null,
      action: 'person.update',
      subjectType: 'person',
      subjectId: 1,
      field: 'first_name',
      oldValue: 'Ada',
      newValue: 'Augusta',
      ...overrides,
    };
  }

  it('records entries with the time of the database and lists them newest first', async () => {
    const subjectId = nextId++;
    const before = Date.now();
    await repositories.audit.record([
      entry({ subjectId, field: 'first_name', actorAccountId: 7, actorKeyId: 9 }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await repositories.audit.record([entry({ subjectId, field: 'chat_id', oldValue: null, newValue: 'c' })]);

    const listed = await repositories.audit.list({ personId: subjectId });

    expect(listed.map((e) => e.field)).toEqual(['chat_id', 'first_name']);
    expect(listed[1]).toEqual({
      id: expect.any(Number),
      at: expect.any(Date),
      actorAccountId: 7,
      actorKeyId: 9,
      action: 'person.update',
      subjectType: 'person',
      subjectId,
      field: 'first_name',
      oldValue: 'Ada',
      newValue: 'Augusta',
    });
    expect(listed[1].at.getTime()).toBeGreaterThanOrEqual(before - 5000);
  });

  it('lists for a person what was done to the person, to the account, and by the account', async () => {
    const personId = nextId++;
    await repositories.audit.record([
      entry({ subjectId: personId, field: 'about-person' }),
      entry({ subjectType: 'account', subjectId: personId, action: 'account.grant', field: 'about-account' }),
      entry({ subjectType: 'api_key', subjectId: 55, actorAccountId: personId, field: 'by-account' }),
      entry({ subjectType: 'api_key', subjectId: personId, field: 'a-key-with-the-same-id' }),
      entry({ subjectId: nextId++, field: 'someone-else' }),
    ]);

    const fields = (await repositories.audit.list({ personId })).map((e) => e.field).sort();

    expect(fields).toEqual(['about-account', 'about-person', 'by-account']);
  });

  it('lists entries since a time, and at most limit', async () => {
    const subjectId = nextId++;
    await repositories.audit.record([entry({ subjectId, field: 'old' })]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const since = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await repositories.audit.record([entry({ subjectId, field: 'new-1' })]);
    await repositories.audit.record([entry({ subjectId, field: 'new-2' })]);

    expect((await repositories.audit.list({ personId: subjectId, since })).map((e) => e.field)).toEqual([
      'new-2',
      'new-1',
    ]);
    expect(await repositories.audit.list({ personId: subjectId, limit: 1 })).toHaveLength(1);
    expect((await repositories.audit.list({ limit: 2 })).length).toBe(2);
  });
});
