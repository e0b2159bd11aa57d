import type { EntityManager } from 'typeorm';
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
import { KEY_EVENT_CHANNELS, notifyKeyEvent } from './key-events';

interface AccountRecord {
  id: number;
  username: string;
  password_hash: string;
  role: Role;
  permissions: Permission[];
  disabled: boolean;
}

const ACCOUNT_COLUMNS = 'id, username, password_hash, role, permissions, disabled';

function toAccount(row: AccountRecord): Account {
  return {
    personId: row.id,
    username: row.username,
    passwordHash: row.password_hash,
    role: row.role,
    permissions: row.permissions,
    disabled: row.disabled,
  };
}

/** Accounts live on the people row: an account is a person with a username and a password hash. */
export class TypeOrmAccountRepository implements AccountRepository {
  constructor(private readonly manager: EntityManager) {}

  findByUsername(username: string): Promise<Account | null> {
    return this.findOne('username = $1', username);
  }

  findByPersonId(personId: number): Promise<Account | null> {
    return this.findOne('id = $1 AND username IS NOT NULL', personId);
  }

  create(account: NewAccount): Promise<Account> {
    return withDatabaseErrors(async () => {
      const rows: AccountRecord[] =
        account.personId === undefined ? await this.insertPerson(account) : await this.attach(account);
      return toAccount(rows[0]);
    });
  }

  update(personId: number, changes: AccountChanges): Promise<void> {
    return withDatabaseErrors(async () => {
      const params: unknown[] = [personId];
      const assignments = ['updated_at = now()'];
      const set = (column: string, value: unknown) => {
        params.push(value);
        assignments.push(`${column} = $${params.length}`);
      };
      if (changes.passwordHash !== undefined) set('password_hash', changes.passwordHash);
      if (changes.permissions !== undefined) set('permissions', changes.permissions);
      if (changes.disabled !== undefined) set('disabled', changes.disabled);
      const [, affected]: [unknown, number] = await this.manager.query(
        `UPDATE people SET ${assignments.join(', ')} WHERE id = $1 AND username IS NOT NULL`,
        params,
      );
      if (affected === 0) throw new NotFound(`account ${personId} not found`);
      // Delivered at commit: every instance forgets the account's cached keys (disabled flag and
      // permissions included), also when the change comes from the command line.
      await notifyKeyEvent(this.manager, KEY_EVENT_CHANNELS.accountChanged, personId);
    });
  }

  list(now: Date): Promise<AccountSummary[]> {
    return withDatabaseErrors(async () => {
      const rows: (Omit<AccountRecord, 'password_hash'> & { active_key_count: number })[] =
        await this.manager.query(
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

  private findOne(condition: string, value: unknown): Promise<Account | null> {
    return withDatabaseErrors(async () => {
      const rows: AccountRecord[] = await this.manager.query(
        `SELECT ${ACCOUNT_COLUMNS} FROM people WHERE ${condition}`,
        [value],
      );
      return rows.length > 0 ? toAccount(rows[0]) : null;
    });
  }

  /** A new person who exists to hold the account: an administrator unless told otherwise. */
  private insertPerson(account: NewAccount): Promise<AccountRecord[]> {
    const firstName = account.firstName ?? account.username;
    const lastName = account.lastName ?? 'Account';
    return this.manager.query(
      `INSERT INTO people (role, first_name, last_name, first_name_folded, last_name_folded,
                           username, password_hash, permissions)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING ${ACCOUNT_COLUMNS}`,
      [
        account.role ?? 'admin',
        firstName,
        lastName,
        foldCase(firstName),
        foldCase(lastName),
        account.username,
        account.passwordHash,
        account.permissions,
      ],
    );
  }

  private async attach(account: NewAccount): Promise<AccountRecord[]> {
    const [rows]: [AccountRecord[], number] = await this.manager.query(
      `UPDATE people
          SET username = $2, password_hash = $3, permissions = $4, role = COALESCE($5, role),
              version = version + 1, updated_at = now()
        WHERE id = $1 AND username IS NULL
        RETURNING ${ACCOUNT_COLUMNS}`,
      [account.personId, account.username, account.passwordHash, account.permissions, account.role ?? null],
    );
    if (rows.length > 0) return rows;
    const exists: unknown[] = await this.manager.query('SELECT 1 FROM people WHERE id = $1', [
      account.personId,
    ]);
    if (exists.length === 0) throw new NotFound(`person ${account.personId} not found`);
    throw new Conflict(`person ${account.personId} already has an account`);
  }
}
