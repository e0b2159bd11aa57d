const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Whether the value is a real calendar date written `YYYY-MM-DD` (no 2023-02-29). Year 0000 does
 * not exist in PostgreSQL's calendar, so it is refused here rather than by the database.
 */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = DATE_SHAPE.exec(value);
  if (match === null || match[1] === '0000') return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}
