import { type Contact, compareContacts, contactOrderSql } from '../../../src/domain/contact';
import { isVisible, ROLES, type Role, visiblePersonSql } from '../../../src/domain/person';
import type { Database } from '../../../src/infrastructure/persistence/database';
import { openTestDatabase, testDatabases } from '../../support/databases';

/**
 * The person rules of src/domain/person.ts and src/domain/contact.ts spelled in TypeScript and in
 * SQL: here both spellings answer the same cases, and the answers must agree.
 */
describe.each(testDatabases)('the person rules in TypeScript and in SQL on $name', (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase(target);
  });
  afterAll(() => database.close());

  it('visible: neither an admin nor erased, for every role, erased or not', async () => {
    const cases: { role: Role; erased: boolean }[] = ROLES.flatMap((role) =>
      [false, true].map((erased) => ({ role, erased })),
    );
    const rows: { visible: boolean }[] = await database.dataSource.query(
      `SELECT (${visiblePersonSql('p')}) AS visible
         FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS p(role, erased_at, n)
        ORDER BY p.n`,
      [cases.map((c) => c.role), cases.map((c) => (c.erased ? new Date() : null))],
    );
    const expected = cases.map((c) => isVisible(c));
    expect(expected).toContain(true);
    expect(expected).toContain(false);
    expect(rows.map((row) => row.visible)).toEqual(expected);
  });

  it('contacts in order: by kind (email, phone, address), then id, whatever order they were written in', async () => {
    const contacts: Pick<Contact, 'id' | 'kind'>[] = [
      { id: 7, kind: 'address' },
      { id: 3, kind: 'phone' },
      { id: 9, kind: 'email' },
      { id: 1, kind: 'address' },
      { id: 12, kind: 'phone' },
      { id: 2, kind: 'email' },
      { id: 5, kind: 'phone' },
    ];
    const rows: { id: number }[] = await database.dataSource.query(
      `SELECT c.id FROM unnest($1::int[], $2::text[]) AS c(id, kind) ORDER BY ${contactOrderSql('c')}`,
      [contacts.map((c) => c.id), contacts.map((c) => c.kind)],
    );
    const expected = [...contacts].sort(compareContacts).map((c) => c.id);
    expect(expected).toEqual([2, 9, 3, 5, 12, 1, 7]);
    expect(rows.map((row) => row.id)).toEqual(expected);
  });
});
