/** A membership whose start or end has come (on or before today) and not been dealt with yet. */
export interface DueMembership {
  id: number;
  personId: number;
  startDate: string;
  endDate: string | null;
  /** It has started (`startDate <= today`) and the calendar has not dealt with that yet. */
  startDue: boolean;
  /** It has ended (`endDate < today`) and the calendar has not dealt with that yet. */
  endDue: boolean;
  /** When its dates were last written: a transition on or before that day was no turn of the calendar. */
  writtenAt: Date;
}

/** A current membership near its end whose renewal notice (membership.ending) is due. */
export interface EndingMembership {
  id: number;
  personId: number;
  endDate: string;
}

/** What the calendar job (membership.started / ended, SPEC §7) has dealt with, per membership. */
export interface MembershipCalendar {
  /**
   * Up to `limit` due memberships, by id, locked until the unit of work ends. Memberships another
   * unit of work holds are skipped, so that instances running the job at once share the work
   * instead of doing it twice.
   */
  claimDue(today: string, limit: number): Promise<DueMembership[]>;
  /** Marks the starts and ends of these memberships as dealt with. */
  markDone(started: number[], ended: number[]): Promise<void>;
  /**
   * Up to `limit` memberships, by end date, whose renewal notice is due (isNearItsEnd today with
   * `noticeDays`), whose end date has not been told yet, of people not erased and not kept on by
   * another membership covering the day after that end date (a renewal already recorded). Locked
   * and skipped as claimDue's.
   */
  claimEnding(today: string, noticeDays: number, limit: number): Promise<EndingMembership[]>;
  /** Remembers that these memberships' present end dates have been told. */
  markEndingTold(ids: number[]): Promise<void>;
}
