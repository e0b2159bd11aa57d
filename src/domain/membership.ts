import { addDays } from './calendar-date';
import type { Club } from './club';

export interface Membership {
  id: number;
  club: Club;
  kind: string | null;
  /** Calendar dates, `YYYY-MM-DD`. */
  startDate: string;
  endDate: string | null;
}

type Dates = Pick<Membership, 'startDate' | 'endDate'>;

// Each rule below is spelled twice: in TypeScript (the in-memory adapter, the API's `current`)
// and as a SQL fragment (the database's WHERE clauses). They sit side by side so that a change to
// one is seen beside the other; test/integration/persistence/rules-in-sql.test.ts runs both on
// the same cases and demands the same answers. A fragment takes `m`, the alias of a `memberships`
// row, and `day`/`date`, SQL expressions of type date (a parameter cast `$1::date`).

/**
 * Current means `startDate <= today <= endDate`, both ends inclusive, an empty end open-ended.
 * ISO calendar dates compare correctly as strings.
 */
export function isCurrent(membership: Dates, today: string): boolean {
  return membership.startDate <= today && lastsUntil(membership, today);
}

export function currentMembershipSql(m: string, day: string): string {
  return `${m}.start_date <= ${day} AND ${lastsUntilSql(m, day)}`;
}

/** Not ended before `date`: open-ended, or ending on that day or later. */
export function lastsUntil(membership: Pick<Dates, 'endDate'>, date: string): boolean {
  return membership.endDate === null || date <= membership.endDate;
}

export function lastsUntilSql(m: string, date: string): string {
  return `(${m}.end_date IS NULL OR ${m}.end_date >= ${date})`;
}

/** Started by `day`: its first day is that day or earlier (the calendar's membership.started). */
export function hasStarted(membership: Pick<Dates, 'startDate'>, day: string): boolean {
  return membership.startDate <= day;
}

export function hasStartedSql(m: string, day: string): string {
  return `${m}.start_date <= ${day}`;
}

/** Ended before `day`: its last day was before it, as "current" is inclusive (membership.ended). */
export function hasEnded(membership: Pick<Dates, 'endDate'>, day: string): boolean {
  return membership.endDate !== null && membership.endDate < day;
}

export function hasEndedSql(m: string, day: string): string {
  return `${m}.end_date IS NOT NULL AND ${m}.end_date < ${day}`;
}

/**
 * Current on the day after `date`. Spelled without that day's string in comparisons: the day
 * after 9999-12-31 is written `+010000-01-01`, which does not compare as a date.
 */
export function isCurrentDayAfter(membership: Dates, date: string): boolean {
  return (
    (membership.startDate <= date || membership.startDate === addDays(date, 1)) &&
    (membership.endDate === null || membership.endDate > date)
  );
}

export function currentDayAfterSql(m: string, date: string): string {
  return `${m}.start_date <= ${date} + 1 AND (${m}.end_date IS NULL OR ${m}.end_date > ${date})`;
}

/**
 * The renewals filter (`ending_before`, SPEC §9): current today and, by the memberships as
 * recorded, not current on the day after `date`: they stop being members by then unless they
 * renew. A renewal already recorded (a membership covering the day after) takes them off the list.
 */
export function isEndingBefore(memberships: Dates[], today: string, date: string): boolean {
  return memberships.some((m) => isCurrent(m, today)) && !memberships.some((m) => isCurrentDayAfter(m, date));
}

/**
 * For a date not before today, whoever isEndingBefore holds a membership current today whose end
 * date is at most that date (one ending later would cover the day after). So those people, found
 * from the memberships by end date through an index, are a small set the rule is tested on,
 * rather than every person. Not for an earlier date, where the rule holds for people without one.
 */
export function endingBeforeCandidatesSql(p: string, today: string, date: string): string {
  return `${p}.id = ANY (ARRAY(SELECT m.person_id FROM memberships m WHERE m.end_date >= ${today} AND m.end_date <= ${date} AND m.start_date <= ${today}))`;
}

/** isEndingBefore over `p`, the alias of a `people` row; `m` is free inside. */
export function endingBeforeSql(p: string, today: string, date: string): string {
  const of = `FROM memberships m WHERE m.person_id = ${p}.id`;
  return (
    `EXISTS (SELECT 1 ${of} AND ${currentMembershipSql('m', today)})` +
    ` AND NOT EXISTS (SELECT 1 ${of} AND ${currentDayAfterSql('m', date)})`
  );
}

/**
 * Its renewal notice is due (membership.ending, SPEC §9): current today, and its end date at most
 * `noticeDays` days away. Counted back from the end date, which never leaves year 9999.
 */
export function isNearItsEnd(membership: Dates, today: string, noticeDays: number): boolean {
  return (
    membership.endDate !== null &&
    isCurrent(membership, today) &&
    addDays(membership.endDate, -noticeDays) <= today
  );
}

/** `days`: an SQL expression of type integer. */
export function nearItsEndSql(m: string, today: string, days: string): string {
  // Current, spelled with the end date as a range: an index on end_date then reads only the notice
  // period, not every end date before it. IS NOT NULL first keeps the answer false, never NULL.
  return `${m}.end_date IS NOT NULL AND ${m}.start_date <= ${today} AND ${m}.end_date >= ${today} AND ${m}.end_date <= ${today} + ${days}`;
}
