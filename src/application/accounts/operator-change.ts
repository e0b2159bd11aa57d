import type { Account } from '../../domain/account';
import type { NewAuditEntry } from '../../domain/audit-entry';
import { NotFound } from '../../domain/errors';
import type { Transaction } from '../ports/unit-of-work';

/**
 * An audit entry for an account change made from the command line: no account made it, the
 * operator at the machine did, which the audit log records as a null actor.
 */
export function operatorChange(
  action: string,
  account: Pick<Account, 'personId'>,
  field: string | null,
  oldValue: string | null,
  newValue: string | null,
): NewAuditEntry {
  return {
    actorAccountId: null,
    actorKeyId: null,
    action,
    subjectType: 'account',
    subjectId: account.personId,
    field,
    oldValue,
    newValue,
  };
}

export async function findAccount(tx: Transaction, username: string): Promise<Account> {
  const account = await tx.accounts.findByUsername(username);
  if (account === null) throw new NotFound(`no account with the username ${JSON.stringify(username)}`);
  return account;
}
