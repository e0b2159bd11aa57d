import { inject, injectable } from 'inversify';
import type { NewAuditEntry } from '../../domain/audit-entry';
import { InvalidInput, NotFound } from '../../domain/errors';
import type { Clock } from '../ports/clock';
import type { PersonIdentity } from '../ports/person-repository';
import { TYPES } from '../ports/tokens';
import type { Transaction, UnitOfWork } from '../ports/unit-of-work';

/**
 * Erases people in the caller's transaction (SPEC §8): anonymised, contacts deleted, membership
 * periods kept; an account disabled and its keys revoked, which every instance hears of at commit
 * (as with `accounts disable`); old and new values in audit entries about them replaced; an
 * entry per person saying that the command line erased them, without any personal data; and
 * person.erased in the change feed.
 */
export async function erasePeople(tx: Transaction, people: PersonIdentity[], now: Date): Promise<void> {
  if (people.length === 0) return;
  const ids = people.map((p) => p.id);
  await tx.people.erase(ids);
  await tx.audit.redactAbout(ids);
  for (const person of people) {
    if (!person.hasAccount) continue;
    await tx.accounts.update(person.id, { disabled: true });
    for (const key of await tx.keys.listActive(person.id, now)) await tx.keys.revoke(key.id, now);
  }
  await tx.audit.record(
    ids.map(
      (id): NewAuditEntry => ({
        actorAccountId: null,
        actorKeyId: null,
        action: 'person.erase',
        subjectType: 'person',
        subjectId: id,
        field: null,
        oldValue: null,
        newValue: null,
      }),
    ),
  );
  await tx.changes.record(
    ids.map((id) => ({ type: 'person.erased', personId: id, fields: null, byKeyId: null })),
  );
}

export interface ErasePersonInput {
  id: number;
  /** The person holds an account: erasing disables it, which the operator must have confirmed. */
  confirmAccount: boolean;
}

export interface ErasePersonOutput {
  /** False when the person had been erased before: nothing was done. */
  erased: boolean;
  /** The username of the account that was disabled, if any. */
  username: string | null;
}

/** `people erase ID`: one person, in one transaction. */
@injectable()
export class ErasePerson {
  constructor(
    @inject(TYPES.UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  execute({ id, confirmAccount }: ErasePersonInput): Promise<ErasePersonOutput> {
    return this.unitOfWork.run(async (tx) => {
      const [person] = await tx.people.findIdentities({ ids: [id], memberNumbers: [], chatIds: [] });
      if (person === undefined) throw new NotFound(`no person has the id ${id}`);
      if (person.role === 'admin') {
        throw new InvalidInput(
          `person ${id} is an admin; admins are not erased (remove the account's rights instead)`,
        );
      }
      if (person.erased) return { erased: false, username: null };
      const account = person.hasAccount ? await tx.accounts.findByPersonId(id) : null;
      if (account !== null && !confirmAccount) {
        throw new InvalidInput(
          `person ${id} holds the account "${account.username}", which erasing disables; give --yes to go ahead`,
        );
      }
      await erasePeople(tx, [person], this.clock.now());
      return { erased: true, username: account?.username ?? null };
    });
  }
}

export interface EraseLeftMembersInput {
  /** YYYY-MM-DD: members all of whose memberships ended before this day. */
  endedBefore: string;
  dryRun: boolean;
}

/**
 * Retention (`people erase --ended-before DATE`): erases every member whose memberships all ended
 * before the date and who holds no account, in one transaction; a dry run only lists them.
 */
@injectable()
export class EraseLeftMembers {
  constructor(
    @inject(TYPES.UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  execute({ endedBefore, dryRun }: EraseLeftMembersInput): Promise<PersonIdentity[]> {
    return this.unitOfWork.run(async (tx) => {
      const people = await tx.people.membersWhoLeftBefore(endedBefore);
      if (!dryRun) await erasePeople(tx, people, this.clock.now());
      return people;
    });
  }
}
