import type { NewChange } from '../ports/change-log';
import type { Clock } from '../ports/clock';
import type { UnitOfWork } from '../ports/unit-of-work';

/** Memberships dealt with per transaction: a few hundred changes at most, and short row locks. */
const BATCH_SIZE = 500;

export interface AnnounceMembershipTransitionsOutput {
  started: number;
  ended: number;
}

/**
 * Tells the feed when a membership becomes current (membership.started) or stops being current
 * (membership.ended) as the calendar turns in the directory's time zone (SPEC §7). Run at start
 * and every minute: whatever came due while the service was down is told at its next run. Each
 * transition is told once: it is marked done in the transaction that records its change, and
 * instances running this at once each take memberships the others have not locked.
 *
 * A transition on or before the day the membership's dates were written was no turn of the
 * calendar (it was written already current, or already ended): its writer's change told it, and
 * it is only marked done here.
 */
export class AnnounceMembershipTransitions {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<AnnounceMembershipTransitionsOutput> {
    const today = this.clock.today();
    const total = { started: 0, ended: 0 };
    for (;;) {
      const claimed = await this.unitOfWork.run(async (tx) => {
        const due = await tx.calendar.claimDue(today, BATCH_SIZE);
        const started: number[] = [];
        const ended: number[] = [];
        const changes: NewChange[] = [];
        for (const membership of due) {
          const writtenOn = this.clock.dateOf(membership.writtenAt);
          const change = { personId: membership.personId, fields: null, byKeyId: null };
          if (membership.startDue) {
            started.push(membership.id);
            if (membership.startDate > writtenOn) changes.push({ type: 'membership.started', ...change });
          }
          // Ended: its last day has passed. Told when it was still current (or to come) when written.
          if (membership.endDue && membership.endDate !== null) {
            ended.push(membership.id);
            if (membership.endDate >= writtenOn) changes.push({ type: 'membership.ended', ...change });
          }
        }
        await tx.calendar.markDone(started, ended);
        await tx.changes.record(changes);
        total.started += changes.filter((c) => c.type === 'membership.started').length;
        total.ended += changes.filter((c) => c.type === 'membership.ended').length;
        return due.length;
      });
      if (claimed < BATCH_SIZE) return total;
    }
  }
}
