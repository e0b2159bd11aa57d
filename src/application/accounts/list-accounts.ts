import type { AccountRepository, AccountSummary } from '../ports/account-repository';
import type { Clock } from '../ports/clock';

/** Every account by username: no password hash is ever part of a summary. */
export class ListAccounts {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<AccountSummary[]> {
    const summaries = await this.accounts.list(this.clock.now());
    // Listed field by field, so that whatever else an adapter returns cannot reach the output.
    return summaries.map((a) => ({
      personId: a.personId,
      username: a.username,
      role: a.role,
      permissions: a.permissions,
      disabled: a.disabled,
      activeKeyCount: a.activeKeyCount,
    }));
  }
}
