import { inject, injectable } from 'inversify';
import { type ApiKey, KEY_NAME_MAX_LENGTH, MAX_ACTIVE_KEYS, MAX_EXPIRES_IN_DAYS } from '../../domain/api-key';
import { Conflict, InvalidInput, TooManyAttempts, Unauthenticated } from '../../domain/errors';
import { isPermission, normalizePermissions, type Permission } from '../../domain/permission';
import { checkText } from '../../domain/text';
import type { AccountRepository } from '../ports/account-repository';
import type { Clock } from '../ports/clock';
import type { LoginThrottle } from '../ports/login-throttle';
import type { PasswordHasher } from '../ports/password-hasher';
import type { TokenService } from '../ports/token-service';
import { TYPES } from '../ports/tokens';
import type { UnitOfWork } from '../ports/unit-of-work';

export interface IssueKeyInput {
  username: string;
  password: string;
  /** The client's address, counted for the login throttle alongside the username. */
  clientAddress: string;
  /** Options of the optional JSON body; checked here whatever the edge checked. */
  name?: unknown;
  permissions?: unknown;
  expiresInDays?: unknown;
}

export interface IssueKeyOutput {
  key: ApiKey;
  /** The full token: shown to its owner this once, never stored. */
  token: string;
}

const WRONG_CREDENTIALS = 'wrong username or password';
const DAY_MS = 24 * 60 * 60 * 1000;

@injectable()
export class IssueKey {
  constructor(
    @inject(TYPES.AccountRepository) private readonly accounts: AccountRepository,
    @inject(TYPES.UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(TYPES.PasswordHasher) private readonly passwords: PasswordHasher,
    @inject(TYPES.TokenService) private readonly tokens: TokenService,
    @inject(TYPES.LoginThrottle) private readonly throttle: LoginThrottle,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  async execute(input: IssueKeyInput): Promise<IssueKeyOutput> {
    const subjects = [`user:${input.username.toLowerCase()}`, `addr:${input.clientAddress}`];
    // Checked before the password, so that a blocked guesser learns nothing, not even a right guess.
    const wait = await this.throttle.blockedFor(subjects);
    if (wait > 0) {
      throw new TooManyAttempts(`too many failed attempts; try again in ${wait} seconds`, wait);
    }

    const account = await this.accounts.findByUsername(input.username);
    // An unknown user is compared against a dummy hash, so the time taken does not reveal it.
    const matches = await this.passwords.verify(input.password, account?.passwordHash ?? null);
    if (account === null || !matches) {
      await this.throttle.recordFailure(subjects);
      throw new Unauthenticated(WRONG_CREDENTIALS);
    }
    if (account.disabled) throw new Unauthenticated(WRONG_CREDENTIALS);

    const name = checkKeyName(input.name);
    const permissions = checkPermissions(input.permissions, account.permissions);
    const days = checkExpiresInDays(input.expiresInDays);
    const now = this.clock.now();
    const expiresAt = days === null ? null : new Date(now.getTime() + days * DAY_MS);

    return this.unitOfWork.run(async (tx) => {
      // Locking the account's person row makes concurrent issues for one account take turns,
      // so the count below cannot be outrun.
      await tx.people.findByIdForUpdate(account.personId);
      if ((await tx.keys.countActive(account.personId, now)) >= MAX_ACTIVE_KEYS) {
        throw new Conflict(`this account already holds ${MAX_ACTIVE_KEYS} active keys; revoke one first`);
      }
      const issued = this.tokens.issue();
      const key = await tx.keys.create({
        accountId: account.personId,
        name,
        prefix: issued.prefix,
        tokenHash: issued.hash,
        permissions,
        createdAt: now,
        expiresAt,
      });
      await tx.audit.record([
        {
          actorAccountId: account.personId,
          actorKeyId: null,
          action: 'key.issue',
          subjectType: 'api_key',
          subjectId: key.id,
          field: null,
          oldValue: null,
          newValue: null,
        },
      ]);
      return { key, token: issued.token };
    });
  }
}

function checkKeyName(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new InvalidInput('name must be a string');
  const checked = checkText(value, { maxLength: KEY_NAME_MAX_LENGTH });
  if ('problem' in checked) throw new InvalidInput(`name ${checked.problem}`);
  return checked.text === '' ? null : checked.text;
}

function checkPermissions(value: unknown, granted: Permission[]): Permission[] {
  // Without a choice the key gets everything the account may do.
  if (value === undefined || value === null) return normalizePermissions(granted);
  if (!Array.isArray(value)) throw new InvalidInput('permissions must be an array of strings');
  const errors: string[] = [];
  for (const item of value) {
    if (!isPermission(item)) errors.push(`permissions: unknown permission ${JSON.stringify(item)}`);
    else if (!granted.includes(item)) errors.push(`permission ${item} is not granted to this account`);
  }
  if (errors.length > 0) throw new InvalidInput(errors);
  return normalizePermissions(value as Permission[]);
}

function checkExpiresInDays(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (!(Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_EXPIRES_IN_DAYS)) {
    throw new InvalidInput(`expires_in_days must be a whole number from 1 to ${MAX_EXPIRES_IN_DAYS}`);
  }
  return value as number;
}
