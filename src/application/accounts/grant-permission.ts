import { normalizePermissions, type Permission } from '../../domain/permission';
import type { UnitOfWork } from '../ports/unit-of-work';
import { findAccount, operatorChange } from './operator-change';

export interface GrantPermissionInput {
  username: string;
  permissions: Permission[];
}

export interface PermissionChangeOutput {
  permissions: Permission[];
  /** False when the account already had exactly these permissions: nothing was written. */
  changed: boolean;
}

export class GrantPermission {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  async execute({ username, permissions }: GrantPermissionInput): Promise<PermissionChangeOutput> {
    return this.unitOfWork.run(async (tx) => {
      const account = await findAccount(tx, username);
      const before = normalizePermissions(account.permissions);
      const after = normalizePermissions([...before, ...permissions]);
      if (after.length === before.length) return { permissions: before, changed: false };
      await tx.accounts.update(account.personId, { permissions: after });
      await tx.audit.record([
        operatorChange('account.grant', account, 'permissions', before.join(','), after.join(',')),
      ]);
      return { permissions: after, changed: true };
    });
  }
}
