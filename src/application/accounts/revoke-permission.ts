import { inject, injectable } from 'inversify';
import { normalizePermissions, type Permission } from '../../domain/permission';
import { TYPES } from '../ports/tokens';
import type { UnitOfWork } from '../ports/unit-of-work';
import type { PermissionChangeOutput } from './grant-permission';
import { findAccount, operatorChange } from './operator-change';

export interface RevokePermissionInput {
  username: string;
  permissions: Permission[];
}

/**
 * Takes permissions away from an account. Keys already issued keep their own list, but a key is
 * only ever allowed what its account still has, so the change reaches every key at once.
 */
@injectable()
export class RevokePermission {
  constructor(@inject(TYPES.UnitOfWork) private readonly unitOfWork: UnitOfWork) {}

  async execute({ username, permissions }: RevokePermissionInput): Promise<PermissionChangeOutput> {
    return this.unitOfWork.run(async (tx) => {
      const account = await findAccount(tx, username);
      const before = normalizePermissions(account.permissions);
      const after = before.filter((p) => !permissions.includes(p));
      if (after.length === before.length) return { permissions: before, changed: false };
      await tx.accounts.update(account.personId, { permissions: after });
      await tx.audit.record([
        operatorChange('account.revoke', account, 'permissions', before.join(','), after.join(',')),
      ]);
      return { permissions: after, changed: true };
    });
  }
}
