import type { NewPerson } from '../../../src/application/ports/person-repository';
import type { Database } from '../../../src/infrastructure/persistence/database';

let counter = 0;

/** A string no other test uses, to find the people a test made among everyone else's. */
export function uniqueTag(): string {
  counter += 1;
  return `Zq${process.pid.toString(36)}${Date.now().toString(36)}${counter.toString(36)}`;
}

export function newPerson(overrides: Partial<NewPerson> = {}): NewPerson {
  return {
    role: 'member',
    firstName: 'Ada',
    lastName: 'Lovelace',
    chatId: null,
    plannerId: null,
    contacts: [],
    memberships: [],
    ...overrides,
  };
}

/** Ids of the people whose last name contains `tag`, admins included, by id. */
export async function idsTagged(database: Database, tag: string): Promise<number[]> {
  const rows: { id: number }[] = await database.dataSource.query(
    'SELECT id FROM people WHERE last_name LIKE $1 ORDER BY id',
    [`%${tag}%`],
  );
  return rows.map((row) => row.id);
}
