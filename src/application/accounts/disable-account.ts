import type { UnitOfWork } from '../ports/unit-of-work';
import { setAccountDisabled } from './set-account-disabled';

export interface DisableAccountInput {
  username: string;
}

/**
 * Stops an account: no new key can be issued and every key it holds is refused from the next
 * request on, because authentication checks the account as well as the key.
 */
export class DisableAccount {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  async execute({ username }: DisableAccountInput): Promise<{ changed: boolean }> {
    return setAccountDisabled(this.unitOfWork, username, true);
  }
}
