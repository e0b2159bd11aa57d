import { type Grace, NO_GRACE } from '../../domain/grace';
import { currentMembershipSql, endingBeforeCandidatesSql, endingBeforeSql } from '../../domain/membership';
import { visiblePersonSql } from '../../domain/person';
import type { PersonFilter } from '../../domain/person-filter';
import { GOOD_STANDINGS, hasStandingSql, STANDINGS } from '../../domain/standing';
import { foldCase } from '../../domain/text';

/** A WHERE clause over `people p` and its parameters, numbered from $1. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/** LIKE treats % _ and \ as special; the filter wants them to match themselves. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The matching rules of SPEC §2. Case-insensitive means Unicode full case folding (SPEC §1),
 * which PostgreSQL 15 cannot compute: the filter is folded here, and compared with the folded
 * copies the writers store beside names and emails. Names are a LIKE on the folded column, which
 * its trigram index serves; email an equality, which its partial b-tree index serves.
 */
export function personFilterSql(
  filter: PersonFilter,
  options: { today: string; grace?: Grace; after?: number; visibleOnly: boolean },
): SqlCondition {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };

  if (options.visibleOnly) conditions.push(visiblePersonSql('p'));
  const after = options.after === undefined ? undefined : param(options.after);
  if (after !== undefined) conditions.push(`p.id > ${after}`);
  if (filter.email !== undefined) {
    // The ids are found first through the partial expression index, then people by primary key.
    // As EXISTS, the planner (which has no statistics on the expression) expected hundreds of
    // matches and scanned all of people: 35 ms a lookup at 100,000 people instead of 0.06 ms.
    conditions.push(
      `p.id = ANY (ARRAY(SELECT c.person_id FROM contacts c WHERE c.kind = 'email' AND c.value_folded = ${param(foldCase(filter.email))}))`,
    );
  }
  if (filter.firstName !== undefined) {
    conditions.push(`p.first_name_folded LIKE ${param(`%${escapeLike(foldCase(filter.firstName))}%`)}`);
  }
  if (filter.lastName !== undefined) {
    conditions.push(`p.last_name_folded LIKE ${param(`%${escapeLike(foldCase(filter.lastName))}%`)}`);
  }
  if (filter.chatId !== undefined) conditions.push(`p.chat_id = ${param(filter.chatId)}`);
  if (filter.memberNumber !== undefined) {
    conditions.push(`p.member_number = ${param(filter.memberNumber)}`);
  }
  if (filter.active !== undefined) {
    const today = param(options.today);
    // Repeating the page start inside the probe lets the planner seek the memberships index from
    // there; without it every deep page read the index from the first person (7 ms, not 2 ms).
    const fromPageStart = after === undefined ? '' : ` AND m.person_id > ${after}`;
    const current = `EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = p.id${fromPageStart} AND ${currentMembershipSql('m', `${today}::date`)})`;
    conditions.push(filter.active === 'yes' ? current : `NOT ${current}`);
  }
  if (filter.endingBefore !== undefined) {
    const today = `${param(options.today)}::date`;
    const date = `${param(filter.endingBefore)}::date`;
    // The usual question (a date ahead) starts from the memberships ending by then: a page of
    // 1,000 at 100,000 people took 170-190 ms testing everyone, 26 ms from those (docs/decisions.md).
    if (filter.endingBefore >= options.today) conditions.push(endingBeforeCandidatesSql('p', today, date));
    conditions.push(`(${endingBeforeSql('p', today, date)})`);
  }
  if (filter.standing !== undefined || filter.inGoodStanding !== undefined) {
    const today = `${param(options.today)}::date`;
    const grace = options.grace ?? NO_GRACE;
    if (filter.standing !== undefined) conditions.push(hasStandingSql('p', today, grace, filter.standing));
    if (filter.inGoodStanding !== undefined) {
      const good = filter.inGoodStanding
        ? GOOD_STANDINGS
        : STANDINGS.filter((s) => !GOOD_STANDINGS.includes(s));
      conditions.push(hasStandingSql('p', today, grace, good));
    }
  }
  if (filter.hasChat !== undefined) conditions.push(`p.chat_id IS ${filter.hasChat ? 'NOT ' : ''}NULL`);
  if (filter.hasPlanner !== undefined) {
    conditions.push(`p.planner_id IS ${filter.hasPlanner ? 'NOT ' : ''}NULL`);
  }
  return { sql: conditions.length > 0 ? conditions.join(' AND ') : 'TRUE', params };
}
