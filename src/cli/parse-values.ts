import { isCalendarDate } from '../domain/calendar-date';
import { MAX_ID } from '../domain/ids';
import { isPermission, PERMISSIONS, type Permission } from '../domain/permission';
import { UsageError } from './cli-errors';
import { startOfDay } from './start-of-day';

/** "read,write", "read" or "" (no permissions). */
export function parsePermissions(text: string, command: string): Permission[] {
  const items = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const unknown = items.filter((p) => !isPermission(p));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown permission ${unknown.map((p) => JSON.stringify(p)).join(', ')}; the permissions are ${PERMISSIONS.join(', ')}`,
      command,
    );
  }
  return items as Permission[];
}

// Capped at MAX_ID: every number the tool takes names a stored row or counts them, and a larger one
// would reach the database only to fail there as an integer out of range.
export function parsePositiveInteger(text: string, option: string, command: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > MAX_ID) {
    throw new UsageError(`${option} takes a positive whole number up to ${MAX_ID}, not "${text}"`, command);
  }
  return Number(text);
}

/** A calendar date (midnight in the directory's time zone) or a full ISO 8601 timestamp. */
export function parseSince(text: string, timeZone: string, command: string): Date {
  if (isCalendarDate(text)) return startOfDay(text, timeZone);
  const instant = /^\d{4}-\d{2}-\d{2}T/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(instant.getTime())) {
    throw new UsageError(
      `--since takes a date such as 2024-05-01 or a time such as 2024-05-01T18:00:00Z, not "${text}"`,
      command,
    );
  }
  return instant;
}
