import { type ApiKey, KEY_NAME_MAX_LENGTH, MAX_ACTIVE_KEYS } from '../../domain/api-key';
import { Conflict, InvalidInput, Unauthenticated } from '../../domain/errors';
import { normalizePermissions, type Permission } from '../../domain/permission';
import { checkText } from '../../domain/text';
import type { Clock } from '../ports/clock';
import type { TokenService } from '../ports/token-service';
import type { UnitOfWork } from '../ports/unit-of-work';

export interface IssueKeyInput {
  /** The account that signed in (AuthenticateAccount). */
  accountId: number;
  name: string | null;
  /** A subset of the account's permissions; null for all of them. */
  permissions: Permission[] | null;
  /** 1 to MAX_EXPIRES_IN_DAYS, checked at the edge; null for a key that never expires. */
  expiresInDays: number | null;
}

export interface IssueKeyOutput {
  key: ApiKey;
  /** The full token: shown to its owner this once, never stored. */
  token: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Issues a key to an account that has signed in. */
export class IssueKey {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
  ) {}

  async execute(input: IssueKeyInput): Promise<IssueKeyOutput> {
    const name = checkKeyName(input.name);
    const days = input.expiresInDays;
    const now = this.clock.now();
    const expiresAt = days === null ? null : new Date(now.getTime() + days * DAY_MS);

    return this.unitOfWork.run(async (tx) => {
      // Locking the account's person row makes concurrent issues for one account take turns, so
      // the count below cannot be outrun, and a permission revoked meanwhile is seen (the revoke
      // changes that row).
      await tx.people.findByIdForUpdate(input.accountId);
      const account = await tx.accounts.findByPersonId(input.accountId);
      if (account === null || account.disabled) throw new Unauthenticated('wrong username or password');
      const permissions = checkPermissions(input.permissions, account.permissions);
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

function checkKeyName(value: string | null): string | null {
  if (value === null) return null;
  const checked = checkText(value, { maxLength: KEY_NAME_MAX_LENGTH });
  if ('problem' in checked) throw new InvalidInput(`name ${checked.problem}`);
  return checked.text === '' ? null : checked.text;
}

function checkPermissions(asked: Permission[] | null, granted: Permission[]): Permission[] {
  // Without a choice the key gets everything the account may do.
  if (asked === null) return normalizePermissions(granted);
  const missing = normalizePermissions(asked).filter((permission) => !granted.includes(permission));
  if (missing.length > 0) {
    throw new InvalidInput(
      missing.map((permission) => `permission ${permission} is not granted to this account`),
    );
  }
  return normalizePermissions(asked);
}
