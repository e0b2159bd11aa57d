import { AuthenticateAccount } from '../../../../src/application/keys/authenticate-account';
import { AuthenticateKey } from '../../../../src/application/keys/authenticate-key';
import { IssueKey, type IssueKeyInput } from '../../../../src/application/keys/issue-key';
import { ListKeys } from '../../../../src/application/keys/list-keys';
import { RevokeKey } from '../../../../src/application/keys/revoke-key';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { RecordedOperatorEvents } from '../../../../src/infrastructure/in-memory/recorded-operator-events';
import { InMemoryLoginThrottle } from '../../../../src/infrastructure/security/in-memory-login-throttle';
import { TokenCodec } from '../../../../src/infrastructure/security/token-codec';
import { FakeClock } from '../../support/fake-clock';
import { FakePasswordHasher } from '../../support/fake-password-hasher';

/** The key use cases wired to in-memory adapters, a fake clock and a fast password hasher. */
export function keysFixture() {
  const clock = new FakeClock('2025-03-15T12:00:00Z');
  const directory = new InMemoryDirectory(clock);
  const passwords = new FakePasswordHasher();
  const tokens = new TokenCodec();
  const throttle = new InMemoryLoginThrottle(clock);
  const events = new RecordedOperatorEvents();
  const issueKey = new IssueKey(directory.unitOfWork, tokens, clock);
  return {
    clock,
    directory,
    passwords,
    tokens,
    throttle,
    events,
    authenticateAccount: new AuthenticateAccount(directory.accounts, passwords, throttle, events),
    issueKey,
    /** IssueKey for a signed-in account, with every option at its default unless given. */
    issue: (accountId: number, options: Partial<Omit<IssueKeyInput, 'accountId'>> = {}) =>
      issueKey.execute({ accountId, name: null, permissions: null, expiresInDays: null, ...options }),
    authenticate: new AuthenticateKey(directory.keys, tokens, clock),
    listKeys: new ListKeys(directory.keys, clock),
    revokeKey: new RevokeKey(directory.unitOfWork, clock),
  };
}
