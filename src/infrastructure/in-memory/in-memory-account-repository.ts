import type {
  AccountChanges,
  AccountRepository,
  AccountSummary,
  NewAccount,
} from '../../application/ports/account-repository';
import type { Account } from '../../domain/account';
import { isActive } from '../../domain/api-key';
import { Conflict, NotFound } from '../../domain/errors';
import { copy, type InMemoryStore, type StoredPerson } from './in-memory-store';

function toAccount(person: StoredPerson): Account | null {
  if (!person.account) return null;
  return copy({ personId: person.id, role: person.role, ...person.account });
}

export class InMemoryAccountRepository implements AccountRepository {
  constructor(private readonly store: InMemoryStore) {}

  async findByUsername(username: string): Promise<Account | null> {
    const person = this.withUsername(username);
    return person ? toAccount(person) : null;
  }

  async findByPersonId(personId: number): Promise<Account | null> {
    const person = this.store.state.people.get(personId);
    return person ? toAccount(person) : null;
  }

  async create(account: NewAccount): Promise<Account> {
    if (this.withUsername(account.username)) throw new Conflict('username is already taken');
    let person: StoredPerson;
    if (account.personId !== undefined) {
      const existing = this.store.state.people.get(account.personId);
      if (!existing) throw new NotFound(`person ${account.personId} not found`);
      if (existing.account) throw new Conflict(`person ${account.personId} already has an account`);
      person = existing;
      if (account.role !== undefined) person.role = account.role;
      person.version += 1;
    } else {
      // A person who exists to hold the account: an administrator named after it unless told otherwise.
      person = {
        id: this.store.id('person'),
        role: account.role ?? 'admin',
        firstName: account.firstName ?? account.username,
        lastName: account.lastName ?? 'Account',
        chatId: null,
        plannerId: null,
        memberNumber: null,
        erased: false,
        version: 1,
        contacts: [],
        memberships: [],
        account: null,
      };
      this.store.state.people.set(person.id, person);
    }
    person.account = {
      username: account.username,
      passwordHash: account.passwordHash,
      permissions: [...account.permissions],
      disabled: false,
    };
    return toAccount(person)!;
  }

  async update(personId: number, changes: AccountChanges): Promise<void> {
    const account = this.store.state.people.get(personId)?.account;
    if (!account) throw new NotFound(`account ${personId} not found`);
    if (changes.passwordHash !== undefined) account.passwordHash = changes.passwordHash;
    if (changes.permissions !== undefined) account.permissions = [...changes.permissions];
    if (changes.disabled !== undefined) account.disabled = changes.disabled;
  }

  async erase(personId: number): Promise<void> {
    const person = this.store.state.people.get(personId);
    if (!person?.account) throw new NotFound(`account ${personId} not found`);
    person.account = null;
  }

  async list(now: Date): Promise<AccountSummary[]> {
    const summaries: AccountSummary[] = [];
    for (const person of this.store.state.people.values()) {
      if (!person.account) continue;
      let activeKeyCount = 0;
      for (const key of this.store.state.keys.values()) {
        if (key.accountId === person.id && isActive(key, now)) activeKeyCount++;
      }
      summaries.push({
        personId: person.id,
        username: person.account.username,
        role: person.role,
        permissions: [...person.account.permissions],
        disabled: person.account.disabled,
        activeKeyCount,
      });
    }
    return summaries.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  }

  private withUsername(username: string): StoredPerson | undefined {
    for (const person of this.store.state.people.values()) {
      if (person.account?.username === username) return person;
    }
    return undefined;
  }
}
