import { ChangePassword } from '../../../src/application/accounts/change-password';
import { CreateAccount } from '../../../src/application/accounts/create-account';
import { GrantPermission } from '../../../src/application/accounts/grant-permission';
import { ListAccounts } from '../../../src/application/accounts/list-accounts';
import { RevokePermission } from '../../../src/application/accounts/revoke-permission';
import { SetAccountDisabled } from '../../../src/application/accounts/set-account-disabled';
import { InMemoryDirectory } from '../../../src/infrastructure/in-memory/in-memory-directory';
import { FakeClock } from './fake-clock';
import { FakePasswordHasher } from './fake-password-hasher';

/** The account use cases over one in-memory directory. */
export function accountsFixture() {
  const clock = new FakeClock();
  const directory = new InMemoryDirectory(clock);
  const hasher = new FakePasswordHasher();
  return {
    clock,
    directory,
    createAccount: new CreateAccount(directory.unitOfWork, hasher),
    grant: new GrantPermission(directory.unitOfWork),
    revoke: new RevokePermission(directory.unitOfWork, clock),
    changePassword: new ChangePassword(directory.unitOfWork, hasher),
    setDisabled: new SetAccountDisabled(directory.unitOfWork),
    list: new ListAccounts(directory.accounts, clock),
  };
}

export async function auditEntries(directory: InMemoryDirectory) {
  return directory.audit.list({ limit: 1000 });
}
