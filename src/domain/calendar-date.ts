const ZERO = 48;
const HYPHEN = 45;

/** The number written by the ASCII digits of `text` from `start` to `end`, or -1 if one is not a digit. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Days of each month in a common year; February gains one in a leap year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * Whether the value is a real calendar date written `YYYY-MM-DD` (no 2023-02-29), in the
 * proleptic Gregorian calendar that PostgreSQL and JavaScript's Date both use. Year 0000 does
 * not exist in PostgreSQL's calendar, so it is refused here rather than by the database.
 * Arithmetic on the characters rather than a Date or a regular expression: an import checks two
 * dates per membership, millions in a large file.
 */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 10) return false;
  if (value.charCodeAt(4) !== HYPHEN || value.charCodeAt(7) !== HYPHEN) return false;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 7);
  const day = digits(value, 8, 10);
  if (year <= 0 || month < 1 || month > 12 || day < 1) return false;
  return day <= DAYS_IN_MONTH[month - 1] + (month === 2 && isLeapYear(year) ? 1 : 0);
}

/**
 * The date `days` days after `date` (before it when negative), both `YYYY-MM-DD`, by the UTC
 * calendar, where no time zone moves a date. Past year 9999 the result is no `YYYY-MM-DD` date (and equals none).
 */
export function addDays(date: string, days: number): string {
  const moved = new Date(`${date}T00:00:00Z`);
  moved.setUTCDate(moved.getUTCDate() + days);
  return moved.toISOString().slice(0, 10);
}
