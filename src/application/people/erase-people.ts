import type { NewAuditEntry } from '../../domain/audit-entry';
import { isCalendarDate } from '../../domain/calendar-date';
import { InvalidInput, NotFound } from '../../domain/errors';
import type { Grace } from '../../domain/grace';
import type { Standing } from '../../domain/standing';
import { isVisible } from '../../domain/person';
import type { Clock } from '../ports/clock';
import type { PersonIdentity } from '../ports/person-repository';
import type { Transaction, UnitOfWork } from '../ports/unit-of-work';
import type { Principal } from '../principal';

/** Who erases: an account through one of its keys (the API), or the command line (null). */
export type Eraser = Pick<Principal, 'accountId' | 'keyId'> | null;

/**
 * Erases people in the caller's transaction (SPEC §8): anonymised, contacts deleted, membership
 * periods kept; an account taken away for good (username, password hash and permissions gone, its
 * keys revoked and their names cleared, so nothing can enable it again), which every instance
 * hears of at commit (as with `accounts disable`); old and new values in audit entries about them
 * replaced; an entry per person saying who erased them, without any personal data; and
 * person.erased in the change feed. Once the unit of work has committed, the store rewrites what
 * held the erased values before it returns (PersonRepository.erase): erased means gone.
 */
export async function erasePeople(
  tx: Transaction,
  candidates: PersonIdentity[],
  now: Date,
  by: Eraser = null,
): Promise<PersonIdentity[]> {
  if (candidates.length === 0) return [];
  // Locked, and read again as committed: a concurrent erasure of the same person has ended (and
  // is not told twice), an import writing them has committed (its values are erased too), and
  // whatever comes later waits for this one (issue 46). Who became an admin meanwhile is kept.
  const people = (await tx.people.lockIdentities(candidates.map((p) => p.id))).filter(isVisible);
  if (people.length === 0) return [];
  const ids = people.map((p) => p.id);
  // The account first: an erased person holding credentials is a state the store refuses.
  for (const person of people) {
    if (!person.hasAccount) continue;
    for (const key of await tx.keys.listActive(person.id, now)) await tx.keys.revoke(key.id, now);
    await tx.keys.forgetNames(person.id);
    await tx.accounts.erase(person.id);
  }
  await tx.people.erase(ids);
  await tx.audit.redactAbout(ids);
  await tx.audit.record(
    ids.map(
      (id): NewAuditEntry => ({
        actorAccountId: by?.accountId ?? null,
        actorKeyId: by?.keyId ?? null,
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
    ids.map((id) => ({ type: 'person.erased', personId: id, fields: null, byKeyId: by?.keyId ?? null })),
  );
  return people;
}

export interface ErasePersonInput {
  id: number;
  /** The person holds an account: erasing takes it away, which the operator must have confirmed. */
  confirmAccount: boolean;
  /**
   * Erasing through the API (DELETE /people/:id), audited with the key. The API shows only visible
   * people, so an admin or someone already erased is NotFound there, as for GET /people/:id.
   */
  principal?: Principal;
}

export interface ErasePersonOutput {
  /** False when the person had been erased before: nothing was done. */
  erased: boolean;
  /** The username of the account that was taken away, if any. */
  username: string | null;
}

/** `people erase ID`: one person, in one transaction. */
export class ErasePerson {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  execute({ id, confirmAccount, principal }: ErasePersonInput): Promise<ErasePersonOutput> {
    // The API answers once the erasure has committed, and the rewrite of what held the values
    // waits its turn behind other sessions; the command line returns once they are gone (SPEC §8).
    const purge = principal === undefined ? 'before-return' : 'in-background';
    return this.unitOfWork.run(
      async (tx) => {
        // Locked: of two erasures of one person, the second waits, then finds them erased (404 over
        // HTTP, one person.erased in the feed); an import writing them commits first, or waits.
        const [person] = await tx.people.lockIdentities([id]);
        if (person === undefined) throw new NotFound(`no person has the id ${id}`);
        if (principal !== undefined && (person.role === 'admin' || person.erased)) {
          throw new NotFound(`no person has the id ${id}`);
        }
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
        await erasePeople(tx, [person], this.clock.now(), principal ?? null);
        return { erased: true, username: account?.username ?? null };
      },
      { purge },
    );
  }
}

/** Still members, whatever their end dates say: never erased by retention. */
const STILL_MEMBERS: readonly Standing[] = ['current', 'grace', 'pending'];

/** Kept by retention: a member who left before the date, still in good standing or yet to start. */
export interface KeptMember extends PersonIdentity {
  standing: Standing;
}

export interface EraseLeftMembersOutput {
  /** Erased, or (a dry run) to be erased. */
  erased: PersonIdentity[];
  kept: KeptMember[];
}

export interface EraseLeftMembersInput {
  /** YYYY-MM-DD: members all of whose memberships ended before this day. */
  endedBefore: string;
  dryRun: boolean;
}

/**
 * Retention (`people erase --ended-before DATE`): erases every member whose memberships all ended
 * before the date and who holds no account, in one transaction; a dry run only lists them. A date
 * after today (in DIRECTORY_TIMEZONE) is refused, dry run or not. Never someone whose standing
 * (SPEC §10) is current, in grace or pending: their end date has passed, but they are still
 * members (a grace), and they are kept, with their standing.
 */
export class EraseLeftMembers {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly grace: Grace,
  ) {}

  async execute({ endedBefore, dryRun }: EraseLeftMembersInput): Promise<EraseLeftMembersOutput> {
    if (!isCalendarDate(endedBefore)) {
      throw new InvalidInput(
        `the date must be a date such as 2020-01-01, not ${JSON.stringify(endedBefore)}`,
      );
    }
    // Everyone whose memberships all end before a later date includes members still current today.
    const today = this.clock.today();
    if (endedBefore > today) {
      throw new InvalidInput(
        `${endedBefore} is after today (${today}): only people who left before a date that has come can be erased`,
      );
    }
    return this.unitOfWork.run(async (tx) => {
      const left = await tx.people.membersWhoLeftBefore(endedBefore);
      const standings = await tx.people.standingsOf(
        left.map((person) => person.id),
        today,
        this.grace,
      );
      const erased: PersonIdentity[] = [];
      const kept: KeptMember[] = [];
      for (const person of left) {
        const standing = standings.get(person.id) ?? 'none';
        if (STILL_MEMBERS.includes(standing)) kept.push({ ...person, standing });
        else erased.push(person);
      }
      // Who was erased since the reading is not erased (nor told) again.
      if (dryRun) return { erased, kept };
      return { erased: await erasePeople(tx, erased, this.clock.now()), kept };
    });
  }
}
