import type { EntityManager } from 'typeorm';
import type {
  DueMembership,
  EndingMembership,
  LapsedMembership,
  MembershipCalendar,
  StandingChange,
} from '../../application/ports/membership-calendar';
import type { Grace } from '../../domain/grace';
import { currentDayAfterSql, hasEndedSql, hasStartedSql, nearItsEndSql } from '../../domain/membership';
import { visiblePersonSql } from '../../domain/person';
import { graceUntilSql, personStandingSql, type Standing } from '../../domain/standing';
import { withDatabaseErrors } from './database-errors';

/** A membership `m`'s last day in good standing: grace_until, else its end date. */
function lastGoodDaySql(m: string, grace: Grace): string {
  return `coalesce(${graceUntilSql(m, grace)}, ${m}.end_date)`;
}

interface DueRow {
  id: number;
  person_id: number;
  start_date: string;
  end_date: string | null;
  start_due: boolean;
  end_due: boolean;
  written_at: Date;
}

// A start or an end is due once the domain says it has come ($1: today) and the job has not dealt
// with it yet; the branches below match the partial indexes' predicates, so that they read them.
const START_DUE = `NOT start_announced AND ${hasStartedSql('memberships', '$1::date')}`;
const END_DUE = `NOT end_announced AND ${hasEndedSql('memberships', '$1::date')}`;

/**
 * The due memberships, found through the partial indexes of what is not announced yet: each
 * branch reads its index by date up to today and stops, so a minute with nothing due reads next
 * to nothing. Asked as one OR ordered by id, the planner walked the primary key through every
 * membership instead (it guesses that many of those not announced have started, when those are
 * memberships still to come): 118 ms of PGlite's one thread every minute for 400,000 memberships,
 * a stall every lookup in flight waited out. The outer conditions are the branches' again, so
 * that a row another instance has just dealt with is checked anew once locked. SKIP LOCKED:
 * another instance's job holds those rows and will deal with them (a batch cut short by them ends
 * this run; what else is due then waits for the next minute or for that instance's next batch).
 */
export const CLAIM_DUE_SQL = `
  SELECT id, person_id, start_date, end_date, written_at,
         (${START_DUE}) AS start_due, (${END_DUE}) AS end_due
    FROM memberships
   WHERE id IN ((SELECT id FROM memberships WHERE ${START_DUE} ORDER BY start_date LIMIT $2)
                UNION ALL
                (SELECT id FROM memberships WHERE ${END_DUE} ORDER BY end_date LIMIT $2))
     AND ((${START_DUE}) OR (${END_DUE}))
   ORDER BY id
   LIMIT $2
     FOR UPDATE SKIP LOCKED`;

/** Reads the partial indexes of what is not announced or told yet, by date, as far as is due. */
export class SqlMembershipCalendar implements MembershipCalendar {
  constructor(private readonly manager: EntityManager) {}

  claimDue(today: string, limit: number): Promise<DueMembership[]> {
    return withDatabaseErrors(async () => {
      const rows: DueRow[] = await this.manager.query(CLAIM_DUE_SQL, [today, limit]);
      return rows.map((row) => ({
        id: row.id,
        personId: row.person_id,
        startDate: row.start_date,
        endDate: row.end_date,
        startDue: row.start_due,
        endDue: row.end_due,
        writtenAt: row.written_at,
      }));
    });
  }

  markDone(started: number[], ended: number[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (started.length === 0 && ended.length === 0) return;
      await this.manager.query(
        `UPDATE memberships
            SET start_announced = start_announced OR id = ANY($1::int[]),
                end_announced = end_announced OR id = ANY($2::int[])
          WHERE id = ANY($1::int[]) OR id = ANY($2::int[])`,
        [started, ended],
      );
    });
  }

  claimEnding(today: string, noticeDays: number, limit: number): Promise<EndingMembership[]> {
    return withDatabaseErrors(async () => {
      // The first two conditions are the partial index's, read by end date over the notice period
      // only (in that order: by id, every membership was read to find none due).
      const rows: { id: number; person_id: number; end_date: string }[] = await this.manager.query(
        `SELECT m.id, m.person_id, m.end_date
           FROM memberships m
          WHERE m.end_date IS NOT NULL AND m.ending_announced IS DISTINCT FROM m.end_date
            AND ${nearItsEndSql('m', '$1::date', '$2::int')}
            AND EXISTS (SELECT 1 FROM people p WHERE p.id = m.person_id AND p.erased_at IS NULL)
            AND NOT EXISTS (SELECT 1 FROM memberships o
                             WHERE o.person_id = m.person_id AND ${currentDayAfterSql('o', 'm.end_date')})
          ORDER BY m.end_date, m.id
          LIMIT $3
            FOR UPDATE OF m SKIP LOCKED`,
        [today, noticeDays, limit],
      );
      return rows.map((row) => ({ id: row.id, personId: row.person_id, endDate: row.end_date }));
    });
  }

  markEndingTold(ids: number[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (ids.length === 0) return;
      await this.manager.query(
        'UPDATE memberships SET ending_announced = end_date WHERE id = ANY($1::int[])',
        [ids],
      );
    });
  }

  claimLapsed(today: string, grace: Grace, limit: number): Promise<LapsedMembership[]> {
    return withDatabaseErrors(async () => {
      // The first conditions are the partial index's, read by end date up to today: what ended and
      // was not dealt with, a grace's length at most (grace_until is at most 366 days later).
      const rows: { id: number; person_id: number; last_good_day: string; written_at: Date }[] =
        await this.manager.query(
          `SELECT m.id, m.person_id, (${lastGoodDaySql('m', grace)})::text AS last_good_day, m.written_at
             FROM memberships m
            WHERE m.end_date IS NOT NULL AND m.lapse_announced IS NULL AND m.end_date < $1::date
              AND ${lastGoodDaySql('m', grace)} < $1::date
              AND EXISTS (SELECT 1 FROM people p WHERE p.id = m.person_id AND p.erased_at IS NULL)
            ORDER BY m.end_date, m.id
            LIMIT $2
              FOR UPDATE OF m SKIP LOCKED`,
          [today, limit],
        );
      return rows.map((row) => ({
        id: row.id,
        personId: row.person_id,
        lastGoodDay: row.last_good_day,
        writtenAt: row.written_at,
      }));
    });
  }

  markLapsesDealt(lapses: Pick<LapsedMembership, 'id' | 'lastGoodDay'>[]): Promise<void> {
    return withDatabaseErrors(async () => {
      if (lapses.length === 0) return;
      await this.manager.query(
        `UPDATE memberships m SET lapse_announced = v.day
           FROM unnest($1::int[], $2::date[]) AS v(id, day)
          WHERE m.id = v.id`,
        [lapses.map((l) => l.id), lapses.map((l) => l.lastGoodDay)],
      );
    });
  }

  reconsiderLapses(today: string, grace: Grace): Promise<void> {
    return withDatabaseErrors(async () => {
      const last = lastGoodDaySql('m', grace);
      await this.manager.query(
        `UPDATE memberships m SET lapse_announced = CASE WHEN ${last} < $1::date THEN ${last} END
          WHERE m.lapse_announced IS NOT NULL AND m.lapse_announced IS DISTINCT FROM ${last}
            AND EXISTS (SELECT 1 FROM people p WHERE p.id = m.person_id AND p.erased_at IS NULL)`,
        [today],
      );
    });
  }

  advanceStandings(
    today: string,
    grace: Grace,
    batch: { after: number; limit: number; writtenWithinSeconds: number | null },
  ): Promise<{ lastId: number | null; changes: StandingChange[] }> {
    return withDatabaseErrors(async () => {
      const rows: { id: number; was: string | null; standing: Standing }[] = await this.manager.query(
        `SELECT p.id, p.standing_announced AS was, ${personStandingSql('p', '$1::date', grace)} AS standing
           FROM people p
          WHERE p.id > $2 AND ${visiblePersonSql('p')}
            AND ($4::int IS NULL OR p.standing_announced IS NULL
                 OR p.updated_at >= now() - make_interval(secs => $4::int))
          ORDER BY p.id
          LIMIT $3`,
        [today, batch.after, batch.limit, batch.writtenWithinSeconds],
      );
      const moved = rows.filter((row) => row.was !== row.standing);
      if (moved.length === 0) return { lastId: rows.at(-1)?.id ?? null, changes: [] };
      // Compare and set: another instance that told a change first has moved the mark on.
      // An UPDATE answers its rows and how many it changed.
      const [won]: [{ id: number }[], number] = await this.manager.query(
        `UPDATE people p SET standing_announced = v.standing
           FROM unnest($1::int[], $2::text[], $3::text[]) AS v(id, was, standing)
          WHERE p.id = v.id AND p.standing_announced IS NOT DISTINCT FROM v.was
          RETURNING p.id`,
        [moved.map((r) => r.id), moved.map((r) => r.was), moved.map((r) => r.standing)],
      );
      const ours = new Set(won.map((row) => row.id));
      return {
        lastId: rows.at(-1)?.id ?? null,
        changes: moved
          .filter((row) => ours.has(row.id))
          .map((row) => ({ personId: row.id, from: row.was, to: row.standing })),
      };
    });
  }
}
