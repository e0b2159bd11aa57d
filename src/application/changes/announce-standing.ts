import { addDays } from '../../domain/calendar-date';
import type { Grace } from '../../domain/grace';
import type { NewChange } from '../ports/change-log';
import type { Clock } from '../ports/clock';
import type { UnitOfWork } from '../ports/unit-of-work';

/** Memberships or people dealt with per transaction, as for the other calendar changes. */
const BATCH_SIZE = 500;

/**
 * Writes are found by their people's write time, by the database's clock (a duration is asked,
 * not a moment, so that the clocks of the instances and the database need not agree): those of
 * transactions that began this long before the last run but committed after it are found too (a
 * re-read only finds nothing new).
 */
const WRITE_OVERLAP_S = 10 * 60;

export interface AnnounceStandingOutput {
  lapsed: number;
  standingChanged: number;
}

/**
 * Tells the feed (SPEC §10) `membership.lapsed` when a membership leaves good standing (the day
 * after its grace_until, or its end date without grace), once per membership and last good day,
 * and `person.standing_changed` (fields ["standing"]) whenever a person's standing is no longer
 * the one last told, by a write or by the calendar. Run with the calendar, at start and every
 * minute: what came due while the service was down is told at its next run.
 *
 * What is remembered is what has been told, never the standing that answers show (computed where
 * read): a lapse's last good day, a person's standing last told. A membership written with its
 * lapse day already past was no turn of the calendar, and a person first seen (just created) has
 * no standing to change from: both are remembered silently. At start, and so after GRACE_DAYS
 * changed, every person is compared, as on each new day; within a day, those written since.
 */
export class AnnounceStanding {
  /** The day every person was last compared; null before the first run of this process. */
  private comparedAll: string | null = null;
  private lastRun: Date | null = null;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly grace: Grace,
  ) {}

  async execute(): Promise<AnnounceStandingOutput> {
    const today = this.clock.today();
    const began = this.clock.now();
    if (this.comparedAll === null) {
      await this.unitOfWork.run((tx) => tx.calendar.reconsiderLapses(today, this.grace));
    }
    const lapsed = await this.tellLapses(today);
    const within =
      this.comparedAll === today && this.lastRun !== null
        ? Math.ceil((began.getTime() - this.lastRun.getTime()) / 1000) + WRITE_OVERLAP_S
        : null;
    const standingChanged = await this.tellStandings(today, within);
    this.comparedAll = today;
    this.lastRun = began;
    return { lapsed, standingChanged };
  }

  private async tellLapses(today: string): Promise<number> {
    let told = 0;
    for (;;) {
      const claimed = await this.unitOfWork.run(async (tx) => {
        const due = await tx.calendar.claimLapsed(today, this.grace, BATCH_SIZE);
        // Its lapse day (the day after its last good day) came after it was written, or that day.
        const changes: NewChange[] = due
          .filter((m) => addDays(m.lastGoodDay, 1) >= this.clock.dateOf(m.writtenAt))
          .map((m) => ({ type: 'membership.lapsed', personId: m.personId, fields: null, byKeyId: null }));
        await tx.calendar.markLapsesDealt(due);
        await tx.changes.record(changes);
        told += changes.length;
        return due.length;
      });
      if (claimed < BATCH_SIZE) return told;
    }
  }

  private async tellStandings(today: string, writtenWithinSeconds: number | null): Promise<number> {
    let told = 0;
    let after = 0;
    for (;;) {
      const lastId = await this.unitOfWork.run(async (tx) => {
        const read = await tx.calendar.advanceStandings(today, this.grace, {
          after,
          limit: BATCH_SIZE,
          writtenWithinSeconds,
        });
        const changes: NewChange[] = read.changes
          .filter((change) => change.from !== null)
          .map((change) => ({
            type: 'person.standing_changed',
            personId: change.personId,
            fields: ['standing'],
            byKeyId: null,
          }));
        await tx.changes.record(changes);
        told += changes.length;
        return read.lastId;
      });
      if (lastId === null) return told;
      after = lastId;
    }
  }
}
