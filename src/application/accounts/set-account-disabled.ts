import type { UnitOfWork } from '../ports/unit-of-work';
import { findAccount, operatorChange } from './operator-change';

export interface SetAccountDisabledInput {
  username: string;
  disabled: boolean;
}

/**
 * Disables an account, or enables it again. Disabled, it gets no new key and every key it holds is
 * refused from the next request on, because authentication checks the account as well as the key;
 * enabled again, its keys that were neither revoked nor expired work again. Answers whether
 * anything changed.
 */
export class SetAccountDisabled {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  async execute({ username, disabled }: SetAccountDisabledInput): Promise<{ changed: boolean }> {
    return this.unitOfWork.run(async (tx) => {
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
}
