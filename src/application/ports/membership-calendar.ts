import type { Grace } from '../../domain/grace';
import type { Standing } from '../../domain/standing';

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

/** An ended membership whose holder has left good standing by it, not dealt with yet. */
export interface LapsedMembership {
  id: number;
  personId: number;
  /** Its last day in good standing: grace_until, else end_date. */
  lastGoodDay: string;
  /** When its dates were written: a lapse day before that day was no turn of the calendar. */
  writtenAt: Date;
}

/** A person whose standing is no longer the one last told (`from`: null when never seen). */
export interface StandingChange {
  personId: number;
  from: string | null;
  to: Standing;
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
  /**
   * Up to `limit` memberships, by end date, lapsed by `today` under `grace` (their last good day
   * before it) and not dealt with yet, of people not erased; locked and skipped as claimDue's.
   */
  claimLapsed(today: string, grace: Grace, limit: number): Promise<LapsedMembership[]>;
  /** Remembers that these lapses (at these last good days) have been dealt with. */
  markLapsesDealt(lapses: Pick<LapsedMembership, 'id' | 'lastGoodDay'>[]): Promise<void>;
  /**
   * After the grace setting changed: a membership dealt with at another last good day is dealt
   * with at its new one when it is lapsed under `grace` too (no turn), and otherwise (in good
   * standing again) not dealt with, so that its lapse is told when it comes. Erased people's are
   * left as they are: nothing more is told of them.
   */
  reconsiderLapses(today: string, grace: Grace): Promise<void>;
  /**
   * Up to `limit` visible people with ids after `after` (those written within the last
   * `writtenWithinSeconds` by the store's clock or never seen, or all of them when it is null):
   * each whose standing under `grace` today is not the
   * one remembered has it remembered, and is answered. `lastId`: the last person read, null when
   * none was. Under concurrent runs each change is answered once (compare and set).
   */
  advanceStandings(
    today: string,
    grace: Grace,
    batch: { after: number; limit: number; writtenWithinSeconds: number | null },
  ): Promise<{ lastId: number | null; changes: StandingChange[] }>;
}
