import type { Grace } from '../../domain/grace';
import { isCurrent } from '../../domain/membership';
import { isVisible, type Person } from '../../domain/person';
import type { Principal } from '../principal';
import type { Clock } from '../ports/clock';
import type { UnitOfWork } from '../ports/unit-of-work';

export interface ExportPeopleInput {
  /**
   * Receives each person in id order, with the directory's date that decides which memberships
   * are current and the grace that decides standing; awaited, so that a slow writer holds back the reading.
   */
  write: (person: Person, today: string, grace: Grace) => Promise<void> | void;
  /** Only the people with a current membership today (a mail merge's list). */
  current?: boolean;
  /** Who exports over HTTP, audited with the key, and what (e.g. "csv"). Absent for the command line. */
  by?: { principal: Principal; format: string };
}

export interface ExportPeopleOutput {
  people: number;
}

/**
 * Exports the members: the people results show, never an admin or an erased person (SPEC §8, §9).
 * People are read in batches and handed on one by one, so that memory does not grow with the
 * directory; one transaction keeps the reading consistent while it runs.
 */
export class ExportPeople {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly grace: Grace,
  ) {}

  async execute({ write, current = false, by }: ExportPeopleInput): Promise<ExportPeopleOutput> {
    const today = this.clock.today();
    return this.unitOfWork.run(async (tx) => {
      if (by !== undefined) {
        // Every member's contacts leave the directory: the log says which key took them, and how.
        await tx.audit.record([
          {
            actorAccountId: by.principal.accountId,
            actorKeyId: by.principal.keyId,
            action: 'people.export',
            subjectType: 'api_key',
            subjectId: by.principal.keyId,
            field: 'format',
            oldValue: null,
            newValue: current ? `${by.format} current` : by.format,
          },
        ]);
      }
      let people = 0;
      for await (const person of tx.people.streamAll()) {
        if (!isVisible(person)) continue;
        if (current && !person.memberships.some((m) => isCurrent(m, today))) continue;
        await write(person, today, this.grace);
        people += 1;
      }
      return { people };
    });
  }
}
