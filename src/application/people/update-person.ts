import type { NewAuditEntry } from '../../domain/audit-entry';
import { Conflict, InvalidInput, NotFound } from '../../domain/errors';
import {
  chatIdRule,
  FIELD_NAMES,
  isVisible,
  nameRule,
  type Person,
  type PersonChanges,
} from '../../domain/person';
import type { ChangedField } from '../ports/change-log';
import type { Clock } from '../ports/clock';
import type { PersonRepository } from '../ports/person-repository';
import type { UnitOfWork } from '../ports/unit-of-work';
import type { Principal } from '../principal';
import { checkPersonPrecondition } from './person-precondition';

export interface UpdatePersonInput {
  /** Who makes the change, for the audit log; their `write` permission is checked at the edge. */
  principal: Principal;
  id: number;
  /** Values as the client sent them, before the domain's rules; absent means "leave as it is". */
  changes: PersonChanges;
  /**
   * The versions the client will accept (If-Match, which may list several tags); the update is
   * refused when none of them is the current one, and always when the list is empty.
   */
  expectedVersions?: number[];
}

export interface UpdatePersonOutput {
  today: string;
  person: Person;
}

/** The fields a PATCH changes, with the API's names for messages and the audit log. */
const FIELDS = (['firstName', 'lastName', 'chatId'] as const satisfies (keyof PersonChanges)[]).map(
  (key) => ({ key, name: FIELD_NAMES[key] }),
);

export class UpdatePerson {
  constructor(
    private readonly people: PersonRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: UpdatePersonInput): Promise<UpdatePersonOutput> {
    const wanted = applyRules(input.changes);
    // Read, decide, then write only if nobody changed the person meanwhile; otherwise decide
    // again on what they now are. No lock is held while deciding, and a write is one step.
    for (;;) {
      const person = await this.attempt(input, wanted);
      if (person !== null) return { today: this.clock.today(), person };
    }
  }

  /** The person as updated, or null when they changed between the read and the write (or the answer). */
  private async attempt(
    { principal, id, expectedVersions }: UpdatePersonInput,
    wanted: PersonChanges,
  ): Promise<Person | null> {
    const current = await this.people.findFieldsById(id);
    if (current === null || !isVisible(current)) throw new NotFound(`person ${id} not found`);
    checkPersonPrecondition(id, current.version, expectedVersions);

    const effective: PersonChanges = {};
    const audit: NewAuditEntry[] = [];
    const fields: ChangedField[] = [];
    for (const { key, name } of FIELDS) {
      const value = wanted[key];
      if (value === undefined || value === current[key]) continue;
      Object.assign(effective, { [key]: value });
      fields.push(name);
      audit.push({
        actorAccountId: principal.accountId,
        actorKeyId: principal.keyId,
        action: 'person.update',
        subjectType: 'person',
        subjectId: id,
        field: name,
        oldValue: current[key],
        newValue: value,
      });
    }
    // Nothing really changes: no write, no new version, no audit entry; the answer is the person
    // as they are (with contacts and memberships), unless they changed since the first read.
    if (audit.length === 0) {
      const person = await this.people.findById(id);
      return person?.version === current.version ? person : null;
    }

    if (typeof effective.chatId === 'string') {
      const taken = await this.people.chatIdsInUse([effective.chatId]);
      if (taken.length > 0)
        throw new Conflict(`chat_id ${effective.chatId} is already used by another person`);
    }
    // The store still refuses a duplicate chat_id that a concurrent change slipped in.
    return this.unitOfWork.commitPersonUpdate({
      id,
      version: current.version,
      changes: effective,
      audit,
      // The feed names the key, so that a client can recognise (and skip) its own writes.
      change: { type: 'person.updated', personId: id, fields, byKeyId: principal.keyId },
    });
  }
}

/** The domain's rules on each value (NFC, trimming, lengths, characters): the values to store. */
function applyRules(changes: PersonChanges): PersonChanges {
  const errors: string[] = [];
  const wanted: PersonChanges = {};
  for (const { key, name } of FIELDS) {
    const raw = changes[key];
    if (raw === undefined) continue;
    const checked = key === 'chatId' ? chatIdRule(name, raw) : nameRule(name, raw as string);
    if ('error' in checked) errors.push(checked.error);
    else Object.assign(wanted, { [key]: checked.value });
  }
  if (errors.length > 0) throw new InvalidInput(errors);
  return wanted;
}
