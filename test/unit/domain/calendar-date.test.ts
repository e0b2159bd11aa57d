import { isCalendarDate } from '../../../src/domain/calendar-date';

describe('isCalendarDate', () => {
  it.each(['2024-02-29', '2000-02-29', '2023-12-31', '0001-01-01', '9999-12-31'])('accepts %s', (value) => {
    expect(isCalendarDate(value)).toBe(true);
  });
  it.each([
    '2023-02-29',
    '1900-02-29',
    '2024-04-31',
    '2024-13-01',
    '2024-00-10',
    '2024-01-00',
    '2024-1-01',
    '2024-0a-10',
    '2024/01/10',
    '-024-01-10',
    '２０２４-01-10',
    '2024-01-01T00:00:00Z',
    '0000-01-01',
    '',
    20240101,
  ])('refuses %s', (value) => {
    expect(isCalendarDate(value)).toBe(false);
  });

  it('agrees with the calendar of JavaScript dates on every day number of every month of many years', () => {
    const byDate = (value: string) => {
      const date = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
    };
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    for (const year of [1, 4, 100, 400, 1600, 1700, 1899, 1900, 1996, 2000, 2023, 2024, 2100, 2400, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const value = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          expect([value, isCalendarDate(value)]).toEqual([value, byDate(value)]);
        }
      }
    }
  });
});
