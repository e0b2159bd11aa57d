import type { NewPerson } from '../../../src/application/ports/person-repository';
import type { Principal } from '../../../src/application/principal';
import type { Account } from '../../../src/domain/account';
import type { Permission } from '../../../src/domain/permission';
import type { Person } from '../../../src/domain/person';
import type { InMemoryDirectory } from '../../../src/infrastructure/in-memory/in-memory-directory';

let names = 0;

/** Adds one person (a member called by a fresh name unless told otherwise) and returns it. */
export async function addPerson(
  directory: InMemoryDirectory,
  overrides: Partial<NewPerson> = {},
): Promise<Person> {
  names += 1;
  await directory.people.insertMany([
    {
      role: 'member',
      firstName: `First${names}`,
      lastName: `Last${names}`,
      chatId: null,
      plannerId: null,
      contacts: [],
      memberships: [],
      ...overrides,
    },
  ]);
  const newest = directory.store.state.nextId.person - 1;
  return (await directory.people.findById(newest))!;
}

/** Adds an account whose password hash is what FakePasswordHasher makes of `password`. */
export async function addAccount(
  directory: InMemoryDirectory,
  options: {
    username?: string;
    password?: string;
    permissions?: Permission[];
    role?: 'member' | 'admin';
  } = {},
): Promise<Account> {
  names += 1;
  return directory.accounts.create({
    username: options.username ?? `user${names}`,
    passwordHash: `hashed:${options.password ?? 'secret'}`,
    permissions: options.permissions ?? ['read', 'write'],
    firstName: 'Account',
    lastName: `Holder${names}`,
    role: options.role,
  });
}

export function principalOf(
  accountId: number,
  permissions: Permission[] = ['read', 'write'],
  keyId = 1,
): Principal {
  return { accountId, keyId, permissions };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
