import type { Clock } from '../ports/clock';
import type { UnitOfWork } from '../ports/unit-of-work';

/** Memberships dealt with per transaction, as for the other calendar changes. */
const BATCH_SIZE = 500;

export interface AnnounceRenewalNoticesInput {
  /** RENEWAL_NOTICE_DAYS: how many days before its end date a membership is told; 0: never. */
  noticeDays: number;
}

/**
 * Tells the feed `membership.ending` (SPEC §9) when a current membership's end date comes within
 * the notice period, once per membership and end date: the end date told is remembered with the
 * membership, so that a renewal moving it later brings a new notice when the new date comes near.
 * Run with the calendar, at start and every minute: what came due while the service was down is
 * told at its next run, and a membership written already that near is told within a minute. A
 * person kept on by a membership covering the day after that end date (a renewal already
 * recorded) is not told: they are not ending, as the ending_before filter says.
 */
export class AnnounceRenewalNotices {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute({ noticeDays }: AnnounceRenewalNoticesInput): Promise<{ ending: number }> {
    if (noticeDays <= 0) return { ending: 0 };
    const today = this.clock.today();
    let ending = 0;
    for (;;) {
      const claimed = await this.unitOfWork.run(async (tx) => {
        const due = await tx.calendar.claimEnding(today, noticeDays, BATCH_SIZE);
        await tx.calendar.markEndingTold(due.map((m) => m.id));
        await tx.changes.record(
          due.map((m) => ({ type: 'membership.ending', personId: m.personId, fields: null, byKeyId: null })),
        );
        return due.length;
      });
      ending += claimed;
      if (claimed < BATCH_SIZE) return { ending };
    }
  }
}
