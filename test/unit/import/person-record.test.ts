import { isCalendarDate } from '../../../src/domain/calendar-date';
import { checkPersonRecord } from '../../../src/domain/person-record';
import { record } from './import-fixture';

function errorsOf(value: unknown): string[] {
  const checked = checkPersonRecord(value);
  return 'errors' in checked ? checked.errors : [];
}

describe('checkPersonRecord', () => {
  it('accepts a complete record and one with only names', () => {
    expect(errorsOf(record())).toEqual([]);
    expect(errorsOf({ first_name: 'A', last_name: 'B' })).toEqual([]);
  });

  it('allows line breaks in an address but not in other contacts, and no control characters in names', () => {
    expect(errorsOf(record({ contacts: [{ kind: 'address', value: '1 Road\r\nTown' }] }))).toEqual([]);
    expect(errorsOf(record({ contacts: [{ kind: 'phone', value: '1\n2' }] }))).toEqual([
      'contacts[0].value must not contain control characters',
    ]);
    expect(errorsOf(record({ first_name: 'A\tB' }))).toEqual([
      'first_name must not contain control characters',
    ]);
  });

  it('names nested fields precisely', () => {
    expect(
      errorsOf(
        record({
          contacts: [{ kind: 'email', value: 'a@b', colour: 'red' }, { kind: 'phone' }, 5],
          memberships: [
            { start_date: '2024-01-01', end_date: 'soon' },
            { club: 'X', start_date: null },
          ],
        }),
      ),
    ).toEqual([
      'contacts[0].unknown field "colour"',
      'contacts[1].value is required',
      'contacts[2] must be an object',
      'memberships[0].club is required',
      'memberships[0].end_date must be a calendar date written YYYY-MM-DD',
      'memberships[1].start_date is required',
    ]);
  });

  it('checks types and lengths of the optional fields', () => {
    expect(
      errorsOf(record({ chat_id: 5, planner_id: 'x'.repeat(65), contacts: 'none', memberships: {} })),
    ).toEqual([
      'chat_id must be a string or null',
      'planner_id must be at most 64 characters',
      'contacts must be an array',
      'memberships must be an array',
    ]);
  });
});

describe('isCalendarDate', () => {
  it.each(['2024-02-29', '2023-12-31', '0001-01-01'])('accepts %s', (value) => {
    expect(isCalendarDate(value)).toBe(true);
  });
  it.each(['2023-02-29', '2024-13-01', '2024-1-01', '2024-01-01T00:00:00Z', '0000-01-01', '', 20240101])(
    'refuses %s',
    (value) => {
      expect(isCalendarDate(value)).toBe(false);
    },
  );
});
