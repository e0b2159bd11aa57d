import type { EntityManager } from 'typeorm';
import type { DueMembership, MembershipCalendar } from '../../application/ports/membership-calendar';
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

/** Reads the partial indexes of what is not announced yet, which stay small. */
export class TypeOrmMembershipCalendar implements MembershipCalendar {
  constructor(private readonly manager: EntityManager) {}

  claimDue(today: string, limit: number): Promise<DueMembership[]> {
    return withDatabaseErrors(async () => {
      // SKIP LOCKED: another instance's job holds those rows and will deal with them.
      const rows: DueRow[] = await this.manager.query(
        `SELECT id, person_id, start_date, end_date, written_at,
                (NOT start_announced AND start_date <= $1::date) AS start_due,
                (NOT end_announced AND end_date < $1::date) AS end_due
           FROM memberships
          WHERE (NOT start_announced AND start_date <= $1::date)
             OR (NOT end_announced AND end_date IS NOT NULL AND end_date < $1::date)
          ORDER BY id
          LIMIT $2
            FOR UPDATE SKIP LOCKED`,
        [today, limit],
      );
      return rows.map((row) => ({
        id: row.id,
        personId: row.person_id,
        startDate: row.start_date,
        endDate: row.end_date,
        startDue: row.start_due,
        endDue: row.end_due === true,
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
}
