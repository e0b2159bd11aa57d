import type { NewAuditEntry } from '../../domain/audit-entry';
import { normalizePermissions, type Permission } from '../../domain/permission';
import type { Clock } from '../ports/clock';
import type { Transaction, UnitOfWork } from '../ports/unit-of-work';
import type { PermissionChangeOutput } from './grant-permission';
import { findAccount, operatorChange } from './operator-change';

export interface RevokePermissionInput {
  username: string;
  permissions: Permission[];
}

/**
 * Takes permissions away from an account and, in the same transaction, from every active key it
 * holds (SPEC §1: a key's permissions are a subset of its account's). So GET /keys shows what each
 * key can do, and granting the permission again later does not widen the old keys.
 */
export class RevokePermission {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute({ username, permissions }: RevokePermissionInput): Promise<PermissionChangeOutput> {
    return this.unitOfWork.run(async (tx) => {
      const account = await findAccount(tx, username);
      const before = normalizePermissions(account.permissions);
      const after = before.filter((p) => !permissions.includes(p));
      if (after.length === before.length) return { permissions: before, changed: false };
      // Updating the account's row first locks it: a key being issued meanwhile waits (IssueKey
      // locks the same row), so it is either among the keys below or issued under the new list.
      await tx.accounts.update(account.personId, { permissions: after });
      await tx.audit.record([
        operatorChange('account.revoke', account, 'permissions', before.join(','), after.join(',')),
        ...(await this.restrictKeys(tx, account.personId, after)),
      ]);
      return { permissions: after, changed: true };
    });
  }

  /** Narrows the account's active keys to `allowed`; one audit entry per key changed. */
  private async restrictKeys(
    tx: Transaction,
    accountId: number,
    allowed: Permission[],
  ): Promise<NewAuditEntry[]> {
    const entries: NewAuditEntry[] = [];
    for (const key of await tx.keys.listActive(accountId, this.clock.now())) {
      const kept = key.permissions.filter((p) => allowed.includes(p));
      if (kept.length === key.permissions.length) continue;
      await tx.keys.setPermissions(key.id, kept);
      entries.push({
        actorAccountId: null,
        actorKeyId: null,
        action: 'key.restrict',
        subjectType: 'api_key',
        subjectId: key.id,
        field: 'permissions',
        oldValue: key.permissions.join(','),
        newValue: kept.join(','),
      });
    }
    return entries;
  }
}
