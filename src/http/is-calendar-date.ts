import { ValidateBy, type ValidationOptions } from 'class-validator';
import { isCalendarDate } from '../domain/calendar-date';

/** A string property holding a real calendar date written `YYYY-MM-DD` (no 2026-02-30). */
export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCalendarDate',
      validator: {
        validate: (value) => isCalendarDate(value),
        defaultMessage: () => 'must be a date written YYYY-MM-DD, such as 2026-06-30',
      },
    },
    options,
  );
}
