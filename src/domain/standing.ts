import { addDays } from './calendar-date';
import { type Grace, graceDays, graceDaysSql } from './grace';
import { currentMembershipSql, isCurrent, type Membership } from './membership';

type Held = Pick<Membership, 'kind' | 'startDate' | 'endDate'>;

export const MEMBERSHIP_STATUSES = ['pending', 'current', 'grace', 'ended'] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];

export const STANDINGS = ['current', 'grace', 'pending', 'lapsed', 'none'] as const;
export type Standing = (typeof STANDINGS)[number];

/** The standings that are "in good standing": a member today, or within their grace. */
export const GOOD_STANDINGS: readonly Standing[] = ['current', 'grace'];

/** `current,grace` as the filter spells a list of standings; null when one is no standing. */
export function parseStandings(text: string): Standing[] | null {
  const names = text.split(',').map((name) => name.trim());
  if (!names.every((name): name is Standing => (STANDINGS as readonly string[]).includes(name))) return null;
  return [...new Set(names)];
}

// Membership standing (SPEC §10): derived from the recorded dates and the grace setting where it is
// read, never stored. Each rule is spelled in TypeScript (the in-memory adapter, the API's views)
// and in SQL (the rendered JSON, the filters, the calendar), side by side as in membership.ts;
// test/integration/persistence/standing-in-sql.test.ts holds both to the same answers. A fragment
// takes `m`, the alias of a `memberships` row (or `p`, of a `people` row) and `today`, an SQL
// expression of type date.

/** The last day PostgreSQL and `YYYY-MM-DD` share: a grace never runs past it. */
const LAST_DAY = '9999-12-31';

/**
 * `end_date` + its grace days, when it has an end date and a grace of at least a day; never past
 * 9999-12-31 (so a membership ending that day has no grace left).
 */
export function graceUntil(membership: Held, grace: Grace): string | null {
  const days = graceDays(grace, membership.kind);
  if (membership.endDate === null || days < 1) return null;
  const until = membership.endDate > addDays(LAST_DAY, -days) ? LAST_DAY : addDays(membership.endDate, days);
  return until === membership.endDate ? null : until;
}

export function graceUntilSql(m: string, grace: Grace): string {
  // The days once (by kind they may be a long expression): no grace is the end date itself, then
  // null; LEAST would skip a NULL end date, which is asked for first.
  const days = graceDaysSql(grace, `${m}.kind`);
  return `(CASE WHEN ${m}.end_date IS NOT NULL THEN nullif(LEAST(${m}.end_date + ${days}, DATE '${LAST_DAY}'), ${m}.end_date) END)`;
}

/** Pending before its start; current as `current` says; in grace after its end until grace_until. */
export function membershipStatus(membership: Held, today: string, grace: Grace): MembershipStatus {
  if (today < membership.startDate) return 'pending';
  if (isCurrent(membership, today)) return 'current';
  const until = graceUntil(membership, grace);
  return until !== null && today <= until ? 'grace' : 'ended';
}

export function membershipStatusSql(m: string, today: string, grace: Grace): string {
  return `(CASE WHEN ${today} < ${m}.start_date THEN 'pending' WHEN ${currentMembershipSql(m, today)} THEN 'current' WHEN ${today} <= ${graceUntilSql(m, grace)} THEN 'grace' ELSE 'ended' END)`;
}

/** The first that applies: any membership current, in grace, pending; else lapsed; none without one. */
export function personStanding(memberships: readonly Held[], today: string, grace: Grace): Standing {
  if (memberships.length === 0) return 'none';
  const statuses = new Set(memberships.map((m) => membershipStatus(m, today, grace)));
  if (statuses.has('current')) return 'current';
  if (statuses.has('grace')) return 'grace';
  return statuses.has('pending') ? 'pending' : 'lapsed';
}

export function personStandingSql(p: string, today: string, grace: Grace): string {
  // One pass over the person's memberships, each status computed once.
  const holds = (status: MembershipStatus) => `bool_or(s.status = '${status}')`;
  return `(SELECT CASE WHEN count(*) = 0 THEN 'none' WHEN ${holds('current')} THEN 'current' WHEN ${holds('grace')} THEN 'grace' WHEN ${holds('pending')} THEN 'pending' ELSE 'lapsed' END FROM (SELECT ${membershipStatusSql('sm', today, grace)} AS status FROM memberships sm WHERE sm.person_id = ${p}.id) s)`;
}

/** The standing filter: their standing is one of `standings` (none of them when it is empty). */
export function hasStanding(
  memberships: readonly Held[],
  today: string,
  grace: Grace,
  standings: readonly Standing[],
): boolean {
  return standings.includes(personStanding(memberships, today, grace));
}

/** `standings` are written into the statement: they are checked names, never a client's text. */
export function hasStandingSql(
  p: string,
  today: string,
  grace: Grace,
  standings: readonly Standing[],
): string {
  if (standings.length === 0) return 'FALSE';
  if (!standings.every((s) => STANDINGS.includes(s))) throw new Error('not a standing');
  return `${personStandingSql(p, today, grace)} IN (${standings.map((s) => `'${s}'`).join(', ')})`;
}

/** The last day a membership keeps its holder in good standing: grace_until, else end_date. */
function goodUntil(membership: Held, grace: Grace): string | null {
  return graceUntil(membership, grace) ?? membership.endDate;
}

/**
 * For a person in good standing, the last day D such that every day from today to D is covered by a
 * membership current or in grace on it (from its start to its grace_until, or end date); null when
 * that chain reaches an open end, and for anyone not in good standing. D is the earliest such last
 * day, at or after today, whose next day no membership covers: every day before it then is covered.
 */
export function goodStandingUntil(memberships: readonly Held[], today: string, grace: Grace): string | null {
  if (!GOOD_STANDINGS.includes(personStanding(memberships, today, grace))) return null;
  let found: string | null = null;
  for (const membership of memberships) {
    const last = goodUntil(membership, grace);
    if (last === null || last < today || (found !== null && last >= found)) continue;
    if (!memberships.some((other) => coversDayAfter(other, last, grace))) found = last;
  }
  return found;
}

/** Covers the day after `date`, spelled without that day's string (see isCurrentDayAfter). */
function coversDayAfter(membership: Held, date: string, grace: Grace): boolean {
  const last = goodUntil(membership, grace);
  return (
    (membership.startDate <= date || membership.startDate === addDays(date, 1)) &&
    (last === null || last > date)
  );
}

export function goodStandingUntilSql(p: string, today: string, grace: Grace): string {
  // Each membership's last good day once. Standing current or grace is, over these periods, one
  // covering today: started by today, its last good day not before it (or none).
  const held = `SELECT gm.start_date, coalesce(${graceUntilSql('gm', grace)}, gm.end_date) AS last FROM memberships gm WHERE gm.person_id = ${p}.id`;
  return `(WITH held AS MATERIALIZED (${held}) SELECT CASE WHEN bool_or(h.start_date <= ${today} AND (h.last IS NULL OR h.last >= ${today})) THEN (SELECT min(e.last) FROM held e WHERE e.last >= ${today} AND NOT EXISTS (SELECT 1 FROM held o WHERE o.start_date <= e.last + 1 AND (o.last IS NULL OR o.last > e.last))) END FROM held h)`;
}
