import { type EntityManager, IsNull, Not, type Repository } from 'typeorm';
import type {
  AccountChanges,
  AccountRepository,
  AccountSummary,
  NewAccount,
} from '../../application/ports/account-repository';
import type { Account } from '../../domain/account';
import { Conflict, NotFound } from '../../domain/errors';
import type { Permission } from '../../domain/permission';
import type { Role } from '../../domain/person';
import { foldCase } from '../../domain/text';
import { withDatabaseErrors } from './database-errors';
import { KEY_EVENT_CHANNELS, notifyKeyEvent } from '../credentials/key-events';
import { type PersonRow, PersonSchema } from './schemas/person-schema';

/** Only ever called on a row with credentials: username and password hash are set together. */
function toAccount(row: PersonRow): Account {
  return {
    personId: row.id,
    username: row.username as string,
    passwordHash: row.passwordHash as string,
    role: row.role as Role,
    permissions: row.permissions as Permission[],
    disabled: row.disabled,
  };
}

/** Accounts live on the people row: an account is a person with a username and a password hash. */
export class SqlAccountRepository implements AccountRepository {
  private readonly people: Repository<PersonRow>;

  constructor(private readonly manager: EntityManager) {
    this.people = manager.getRepository(PersonSchema);
  }

  findByUsername(username: string): Promise<Account | null> {
    return this.findOne({ username });
  }

  findByPersonId(personId: number): Promise<Account | null> {
    return this.findOne({ id: personId, username: Not(IsNull()) });
  }

  create(account: NewAccount): Promise<Account> {
    return withDatabaseErrors(async () => {
      const personId =
        account.personId === undefined
          ? await this.insertPerson(account)
          : await this.attach(account.personId, account);
      return toAccount(await this.people.findOneByOrFail({ id: personId }));
    });
  }

  update(personId: number, changes: AccountChanges): Promise<void> {
    return withDatabaseErrors(async () => {
      const { affected } = await this.people.update(
        { id: personId, username: Not(IsNull()) },
        { ...changes, updatedAt: () => 'now()' },
      );
      if (affected === 0) throw new NotFound(`account ${personId} not found`);
      // Delivered at commit: every instance forgets the account's cached keys (disabled flag and
      // permissions included), also when the change comes from the command line.
      await notifyKeyEvent(this.manager, KEY_EVENT_CHANNELS.accountChanged, personId);
    });
  }

  erase(personId: number): Promise<void> {
    return withDatabaseErrors(async () => {
      const { affected } = await this.people.update(
        { id: personId, username: Not(IsNull()) },
        { username: null, passwordHash: null, permissions: [], disabled: true, updatedAt: () => 'now()' },
      );
      if (affected === 0) throw new NotFound(`account ${personId} not found`);
      await notifyKeyEvent(this.manager, KEY_EVENT_CHANNELS.accountChanged, personId);
    });
  }

  // Two tables, counted per account: SQL.
  list(now: Date): Promise<AccountSummary[]> {
    return withDatabaseErrors(async () => {
      const rows: {
        id: number;
        username: string;
        role: Role;
        permissions: Permission[];
        disabled: boolean;
        active_key_count: number;
      }[] = await this.manager.query(
        `SELECT p.id, p.username, p.role, p.permissions, p.disabled,
                (SELECT count(*)::int FROM api_keys k
                  WHERE k.person_id = p.id AND k.revoked_at IS NULL
                    AND (k.expires_at IS NULL OR k.expires_at > $1)) AS active_key_count
           FROM people p
          WHERE p.username IS NOT NULL
          ORDER BY p.username`,
        [now],
      );
      return rows.map((row) => ({
        personId: row.id,
        username: row.username,
        role: row.role,
        permissions: row.permissions,
        disabled: row.disabled,
        activeKeyCount: row.active_key_count,
      }));
    });
  }

  private findOne(where: Parameters<Repository<PersonRow>['findOneBy']>[0]): Promise<Account | null> {
    return withDatabaseErrors(async () => {
      const row = await this.people.findOneBy(where);
      return row ? toAccount(row) : null;
    });
  }

  /** A new person who exists to hold the account: an administrator unless told otherwise. */
  private async insertPerson(account: NewAccount): Promise<number> {
    const firstName = account.firstName ?? account.username;
    const lastName = account.lastName ?? 'Account';
    const { identifiers } = await this.people.insert({
      role: account.role ?? 'admin',
      firstName,
      lastName,
      firstNameFolded: foldCase(firstName),
      lastNameFolded: foldCase(lastName),
      username: account.username,
      passwordHash: account.passwordHash,
      permissions: account.permissions,
    });
    return identifiers[0].id as number;
  }

  private async attach(personId: number, account: NewAccount): Promise<number> {
    const { affected } = await this.people.update(
      { id: personId, username: IsNull() },
      {
        username: account.username,
        passwordHash: account.passwordHash,
        permissions: account.permissions,
        role: account.role,
        version: () => 'version + 1',
        updatedAt: () => 'now()',
      },
    );
    if (affected !== 0) return personId;
    if (!(await this.people.existsBy({ id: personId }))) throw new NotFound(`person ${personId} not found`);
    throw new Conflict(`person ${personId} already has an account`);
  }
}
