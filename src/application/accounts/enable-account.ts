import type { UnitOfWork } from '../ports/unit-of-work';
import { setAccountDisabled } from './set-account-disabled';

export interface EnableAccountInput {
  username: string;
}

/** Undoes DisableAccount; keys that were neither revoked nor expired work again. */
export class EnableAccount {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  async execute({ username }: EnableAccountInput): Promise<{ changed: boolean }> {
    return setAccountDisabled(this.unitOfWork, username, false);
  }
}
