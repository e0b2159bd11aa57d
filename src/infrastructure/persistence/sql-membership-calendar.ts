import type { EntityManager } from 'typeorm';
import type {
  DueMembership,
  EndingMembership,
  MembershipCalendar,
} from '../../application/ports/membership-calendar';
import { currentDayAfterSql, hasEndedSql, hasStartedSql, nearItsEndSql } from '../../domain/membership';
import { withDatabaseErrors } from './database-errors';

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
}
