import { InvalidInput } from '../../domain/errors';
import { checkPassword } from '../../domain/password';
import type { PasswordHasher } from '../ports/password-hasher';
import type { UnitOfWork } from '../ports/unit-of-work';
import { findAccount, operatorChange } from './operator-change';

export interface ChangePasswordInput {
  username: string;
  password: string;
}

/** Sets a new password. Keys already issued stay valid: revoke them separately if they leaked. */
export class ChangePassword {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly passwords: PasswordHasher,
  ) {}

  async execute({ username, password }: ChangePasswordInput): Promise<void> {
    const problem = checkPassword(password);
    if (problem !== null) throw new InvalidInput(problem);
    const passwordHash = await this.passwords.hash(password);
    await this.unitOfWork.run(async (tx) => {
      const account = await findAccount(tx, username);
      await tx.accounts.update(account.personId, { passwordHash });
      // Neither hash is written to the log: the entry says that the password changed, not to what.
      await tx.audit.record([operatorChange('account.password', account, 'password', null, null)]);
    });
  }
}
