import type { UnitOfWork } from '../ports/unit-of-work';
import { findAccount, operatorChange } from './operator-change';

/** Shared by DisableAccount and EnableAccount; answers whether anything changed. */
export async function setAccountDisabled(
  unitOfWork: UnitOfWork,
  username: string,
  disabled: boolean,
): Promise<{ changed: boolean }> {
  return unitOfWork.run(async (tx) => {
    const account = await findAccount(tx, username);
    if (account.disabled === disabled) return { changed: false };
    await tx.accounts.update(account.personId, { disabled });
    await tx.audit.record([
      operatorChange(
        disabled ? 'account.disable' : 'account.enable',
        account,
        'disabled',
        String(account.disabled),
        String(disabled),
      ),
    ]);
    return { changed: true };
  });
}
