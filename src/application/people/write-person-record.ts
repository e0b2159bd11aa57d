import { Conflict, InvalidInput, NotFound } from '../../domain/errors';
import { isVisible, type Person } from '../../domain/person';
import type { Clock } from '../ports/clock';
import type { NewMembership, PersonRepository } from '../ports/person-repository';
import type { Spool, Spools } from '../ports/spool';
import type { UnitOfWork } from '../ports/unit-of-work';
import type { Principal } from '../principal';
import {
  ImportPeople,
  type ImportPeopleInput,
  type IncomingPerson,
  type IncomingRecord,
} from './import-people';
import { ImportRefused } from './import-problems';
import { sameMembership } from './person-diff';
import { checkPersonPrecondition } from './person-precondition';

/** What is written: a record as an import file holds it, or a membership to add (SPEC §9). */
export type RecordWrite =
  /** Adds the person the record says; the directory gives the id (a record with one is refused). */
  | { kind: 'add'; person: IncomingPerson }
  /** Makes person `id` what the record says, as an import would (left-out fields kept). */
  | { kind: 'replace'; id: number; person: IncomingPerson; expectedVersions?: number[] }
  /** A renewal: one membership more for person `id`, the others kept. */
  | { kind: 'renew'; id: number; membership: NewMembership; expectedVersions?: number[] };

export interface WritePersonRecordInput {
  /** Who writes, audited and told in the feed; their `manage` permission is checked at the edge. */
  principal: Principal;
  write: RecordWrite;
}

export interface WritePersonRecordOutput {
  today: string;
  /** The person as written (or as they are, when the record changed nothing). */
  person: Person;
}

/** How the problems of the one record are named: as the import names them, less its "record N: ". */
const WHERE = 'the record';

/** One record's spool, in memory: there is no file to guard against, and one record is small. */
const ONE_RECORD: Spools = {
  async open<T>(): Promise<Spool<T>> {
    const items: T[] = [];
    return {
      add: async (item) => {
        items.push(item);
      },
      read: async function* () {
        yield* items;
      },
      close: async () => {
        items.length = 0;
      },
    };
  },
};

/** Thrown inside the import when a renewal's person changed since it was read: read again. */
class ChangedMeanwhile extends Error {}

/**
 * One person written from one import record (SPEC §9, "Editing over HTTP"): the import itself on a
 * file of one record, so that every rule (the checks, how contacts and memberships are matched,
 * left-out fields kept, the audit and the feed) is the import's, and a secretary's edit and a
 * roster's import can never disagree. Only what a single edit adds is here: who the record must
 * name, If-Match, and each problem answered as its kind (400, 404, 409).
 */
export class WritePersonRecord {
  private readonly importPeople: ImportPeople;

  constructor(
    private readonly people: PersonRepository,
    unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {
    this.importPeople = new ImportPeople(unitOfWork, clock, ONE_RECORD);
  }

  async execute(input: WritePersonRecordInput): Promise<WritePersonRecordOutput> {
    const { write } = input;
    switch (write.kind) {
      case 'add':
        return this.answer(await this.add(input, write.person));
      case 'replace': {
        if (write.person.id !== null && write.person.id !== write.id) {
          throw new InvalidInput(`id must be ${write.id}, the id of the person written, or left out`);
        }
        await this.sync(
          input,
          { ...write.person, id: write.id },
          {
            // The person is locked by now: the version checked is the one written over.
            confirm: async (tx) => {
              const current = await tx.people.findFieldsById(write.id);
              if (current !== null)
                checkPersonPrecondition(write.id, current.version, write.expectedVersions);
            },
          },
        );
        return this.answer(write.id);
      }
      case 'renew':
        await this.renew(input, write);
        return this.answer(write.id);
    }
  }

  private async add(input: WritePersonRecordInput, person: IncomingPerson): Promise<number> {
    if (person.id !== null) {
      throw new InvalidInput('id must be left out: the directory gives the person added their id');
    }
    let added: number | undefined;
    await this.sync(input, person, {
      // A member_number that names someone would make the import change them: nobody is added.
      confirm: async (_tx, named) => {
        const id = named.get(0);
        if (id !== undefined) {
          throw new Conflict(
            `member_number ${JSON.stringify(person.memberNumber)} is already used by person ${id}; a person added needs a number of their own`,
          );
        }
      },
      onAdded: (_index, id) => {
        added = id;
      },
    });
    if (added === undefined) throw new Error('the import of one record added nobody');
    return added;
  }

  /**
   * The memberships as read, and the new one: written only if the person is still as read (else
   * read again), so that a change made meanwhile is never undone by the renewal.
   */
  private async renew(
    input: WritePersonRecordInput,
    write: Extract<RecordWrite, { kind: 'renew' }>,
  ): Promise<void> {
    for (;;) {
      const current = await this.people.findById(write.id);
      if (current === null || !isVisible(current)) throw new NotFound(`person ${write.id} not found`);
      checkPersonPrecondition(write.id, current.version, write.expectedVersions);
      // A renewal sent twice (a retry, a second click) records one membership.
      if (current.memberships.some((m) => sameMembership(m, write.membership))) {
        throw new Conflict(`person ${write.id} already has this membership (the same club, kind and dates)`);
      }
      const memberships = [
        ...current.memberships.map((m) => ({
          club: m.club.name,
          kind: m.kind,
          startDate: m.startDate,
          endDate: m.endDate,
        })),
        write.membership,
      ];
      try {
        await this.sync(
          input,
          { id: write.id, memberships },
          {
            confirm: async (tx) => {
              const locked = await tx.people.findFieldsById(write.id);
              if (locked?.version !== current.version) throw new ChangedMeanwhile();
            },
          },
        );
        return;
      } catch (error) {
        if (!(error instanceof ChangedMeanwhile)) throw error;
      }
    }
  }

  /** The import of the one record; its problems answered as what they are about. */
  private async sync(
    input: WritePersonRecordInput,
    person: IncomingPerson,
    hooks: Pick<ImportPeopleInput, 'confirm' | 'onAdded'>,
  ): Promise<void> {
    const record: IncomingRecord = { index: 0, where: WHERE, person };
    try {
      await this.importPeople.execute({
        records: (async function* () {
          yield record;
        })(),
        principal: input.principal,
        // Admins and erased people are nobody here, and nobody is made an admin, as over HTTP.
        membersOnly: true,
        ...hooks,
      });
    } catch (error) {
      if (!(error instanceof ImportRefused)) throw error;
      const messages = error.messages.map((m) =>
        m.startsWith(`${WHERE}: `) ? m.slice(WHERE.length + 2) : m,
      );
      // What is wrong with the record first, as for a PATCH (400 before 404).
      if (error.kinds.has('invalid')) throw new InvalidInput(messages, error.total);
      if (error.kinds.has('unknown')) throw new NotFound(messages, error.total);
      throw new Conflict(messages, error.total);
    }
  }

  /** The person as they are once written (a change committed since then included). */
  private async answer(id: number): Promise<WritePersonRecordOutput> {
    const person = await this.people.findById(id);
    if (person === null || !isVisible(person)) throw new NotFound(`person ${id} not found`);
    return { today: this.clock.today(), person };
  }
}
