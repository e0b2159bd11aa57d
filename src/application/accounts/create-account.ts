import { USERNAME_PATTERN } from '../../domain/account';
import { Conflict, InvalidInput, NotFound } from '../../domain/errors';
import { checkPassword } from '../../domain/password';
import { normalizePermissions, type Permission } from '../../domain/permission';
import { checkName, type Role } from '../../domain/person';
import type { AccountSummary } from '../ports/account-repository';
import type { PasswordHasher } from '../ports/password-hasher';
import type { UnitOfWork } from '../ports/unit-of-work';
import { operatorChange } from './operator-change';

export interface CreateAccountInput {
  username: string;
  password: string;
  permissions: Permission[];
  /** Attach the credentials to this existing person. */
  personId?: number;
  /** Names of the new person when there is no personId; both or neither. */
  firstName?: string;
  lastName?: string;
  /**
   * Make the person an admin: hidden from every people result. A new person made without names is
   * always an admin, because it is an account for a service or an operator, not a member.
   */
  admin?: boolean;
}

export type CreateAccountOutput = Omit<AccountSummary, 'activeKeyCount'>;

export class CreateAccount {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly passwords: PasswordHasher,
  ) {}

  async execute(input: CreateAccountInput): Promise<CreateAccountOutput> {
    const { username, personId } = input;
    const errors: string[] = [];
    if (!USERNAME_PATTERN.test(username)) {
      errors.push('the username must be 1 to 64 letters, digits or . _ @ -');
    }
    const passwordError = checkPassword(input.password);
    if (passwordError !== null) errors.push(passwordError);
    const names = personId === undefined ? newPersonNames(input, errors) : null;
    if (personId !== undefined && (!Number.isSafeInteger(personId) || personId < 1)) {
      errors.push('the person id must be a positive whole number');
    }
    if (errors.length > 0) throw new InvalidInput(errors);

    // Hashed before the transaction opens: bcrypt takes a while and needs no lock.
    const passwordHash = await this.passwords.hash(input.password);
    const role: Role | undefined =
      input.admin || names?.serviceAccount ? 'admin' : names ? 'member' : undefined;

    return this.unitOfWork.run(async (tx) => {
      if (await tx.accounts.findByUsername(username)) {
        throw new Conflict(`the username ${JSON.stringify(username)} is already taken`);
      }
      // A member made an admin leaves every people result: the feed must tell its followers.
      let removed = false;
      if (personId !== undefined) {
        const person = await tx.people.findFieldsById(personId);
        if (person === null) throw new NotFound(`no person with the id ${personId}`);
        // Erased means for good: no new credentials bring the person back (SPEC §8).
        if (person.erased) {
          throw new InvalidInput(`person ${personId} was erased; an erased person cannot hold an account`);
        }
        removed = person.role === 'member' && role === 'admin';
        const existing = await tx.accounts.findByPersonId(personId);
        if (existing) {
          throw new Conflict(
            `person ${personId} already has the account ${JSON.stringify(existing.username)}`,
          );
        }
      }
      const account = await tx.accounts.create({
        username,
        passwordHash,
        permissions: normalizePermissions(input.permissions),
        personId,
        firstName: names?.firstName,
        lastName: names?.lastName,
        role,
      });
      await tx.audit.record([
        operatorChange('account.create', account, 'username', null, account.username),
        operatorChange('account.create', account, 'role', null, account.role),
        operatorChange('account.create', account, 'permissions', null, account.permissions.join(',')),
      ]);
      // A new member appears in /people: the feed says so (an admin never appears in either).
      if (personId === undefined && account.role === 'member') {
        await tx.changes.record([
          { type: 'person.created', personId: account.personId, fields: null, byKeyId: null },
        ]);
      }
      if (removed) {
        await tx.changes.record([
          { type: 'person.removed', personId: account.personId, fields: null, byKeyId: null },
        ]);
      }
      return {
        personId: account.personId,
        username: account.username,
        role: account.role,
        permissions: account.permissions,
        disabled: account.disabled,
      };
    });
  }
}

function newPersonNames(
  input: CreateAccountInput,
  errors: string[],
): { firstName: string; lastName: string; serviceAccount: boolean } {
  if (input.firstName === undefined && input.lastName === undefined) {
    // An account with no person behind it (a bot, an operator) is named after itself.
    return { firstName: input.username, lastName: '(account)', serviceAccount: true };
  }
  const first = checkName('first name', input.firstName ?? '');
  const last = checkName('last name', input.lastName ?? '');
  if ('error' in first) errors.push(first.error);
  if ('error' in last) errors.push(last.error);
  return {
    firstName: 'value' in first ? first.value : '',
    lastName: 'value' in last ? last.value : '',
    serviceAccount: false,
  };
}
