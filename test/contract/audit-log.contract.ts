import type { NewAuditEntry } from '../../src/domain/audit-entry';
import type { ContractAdapter } from './contract-adapter';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * AuditLog: entries stamped by the store when recorded, listed newest first. Times are compared
 * with the test's clock: the store's must agree with it to a few milliseconds.
 */
export function describeAuditLogContract(adapter: () => ContractAdapter): void {
  const audit = () => adapter().repositories.audit;
  // Subjects no other test (and no real person of the shared store) has.
  let nextSubject = 1_000_000_000 + Math.floor(Math.random() * 100_000_000);

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

  describe('AuditLog', () => {
    it('records entries stamped with the time of recording, one time for one call, and lists them newest first', async () => {
      const subjectId = nextSubject++;
      const before = Date.now();
      await audit().record([
        entry({ subjectId, field: 'first_name', actorAccountId: 7, actorKeyId: 9 }),
        entry({ subjectId, field: 'last_name' }),
      ]);
      await pause(10);
      await audit().record([entry({ subjectId, field: 'chat_id', oldValue: null, newValue: 'c' })]);

      const listed = await audit().list({ personId: subjectId });

      expect(listed.map((e) => e.field)).toEqual(['chat_id', 'last_name', 'first_name']);
      // `at` is checked below by its time (a Date cloned in memory fails Jest's instanceof).
      expect(listed[2]).toEqual({
        id: expect.any(Number),
        at: listed[2].at,
        actorAccountId: 7,
        actorKeyId: 9,
        action: 'person.update',
        subjectType: 'person',
        subjectId,
        field: 'first_name',
        oldValue: 'Ada',
        newValue: 'Augusta',
      });
      expect(listed[1].at).toEqual(listed[2].at);
      expect(listed[0].at.getTime()).toBeGreaterThan(listed[1].at.getTime());
      expect(listed[2].at.getTime()).toBeGreaterThanOrEqual(before - 5000);
      expect(listed[0].at.getTime()).toBeLessThanOrEqual(Date.now() + 5000);
    });

    it('records nothing for an empty list', async () => {
      const before = (await audit().list({})).length;

      await audit().record([]);

      expect(await audit().list({})).toHaveLength(before);
    });

    it('lists for a person what was done to the person, to its account, and by its account', async () => {
      const personId = nextSubject++;
      await audit().record([
        entry({ subjectId: personId, field: 'about-person' }),
        entry({
          subjectType: 'account',
          subjectId: personId,
          action: 'account.grant',
          field: 'about-account',
        }),
        entry({ subjectType: 'api_key', subjectId: 55, actorAccountId: personId, field: 'by-account' }),
        entry({ subjectType: 'api_key', subjectId: personId, field: 'a-key-with-the-same-id' }),
        entry({ subjectId: nextSubject++, field: 'someone-else' }),
      ]);

      const fields = (await audit().list({ personId })).map((e) => e.field).sort();

      expect(fields).toEqual(['about-account', 'about-person', 'by-account']);
    });

    it('lists the entries recorded since a time, and at most limit, newest first', async () => {
      const subjectId = nextSubject++;
      await audit().record([entry({ subjectId, field: 'old' })]);
      await pause(20);
      const since = new Date();
      await pause(20);
      await audit().record([entry({ subjectId, field: 'new-1' })]);
      await pause(5);
      await audit().record([entry({ subjectId, field: 'new-2' })]);

      const fields = async (query: Parameters<ReturnType<typeof audit>['list']>[0]) =>
        (await audit().list(query)).map((e) => e.field);
      expect(await fields({ personId: subjectId, since })).toEqual(['new-2', 'new-1']);
      expect(await fields({ personId: subjectId, limit: 1 })).toEqual(['new-2']);
      expect(await fields({ personId: subjectId, since, limit: 1 })).toEqual(['new-2']);
      expect(await audit().list({ limit: 2 })).toHaveLength(2);
    });
  });
}
