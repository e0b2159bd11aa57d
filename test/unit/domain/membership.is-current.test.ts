import { isCurrent } from '../../../src/domain/membership';

/** The days among `days` on which a membership from `startDate` to `endDate` is current. */
function currentOn(startDate: string, endDate: string | null, days: string[]): string[] {
  return days.filter((today) => isCurrent({ startDate, endDate }, today));
}

describe('isCurrent', () => {
  it('holds from the start date through the end date, both days included', () => {
    expect(
      currentOn('2025-03-10', '2025-03-20', [
        '2025-03-09',
        '2025-03-10',
        '2025-03-15',
        '2025-03-20',
        '2025-03-21',
      ]),
    ).toEqual(['2025-03-10', '2025-03-15', '2025-03-20']);
  });

  it('holds on the one day of a membership that starts and ends the same day', () => {
    expect(currentOn('2025-03-10', '2025-03-10', ['2025-03-09', '2025-03-10', '2025-03-11'])).toEqual([
      '2025-03-10',
    ]);
  });

  it('never ends without an end date, and never starts before its start date', () => {
    expect(currentOn('2025-03-10', null, ['2025-03-09', '2025-03-10', '9999-12-31'])).toEqual([
      '2025-03-10',
      '9999-12-31',
    ]);
  });

  it('compares whole dates across the turn of a month and a year', () => {
    expect(
      currentOn('2024-12-31', '2025-01-01', ['2024-12-30', '2024-12-31', '2025-01-01', '2025-01-02']),
    ).toEqual(['2024-12-31', '2025-01-01']);
    expect(currentOn('0001-01-01', '2024-02-29', ['2024-02-28', '2024-02-29', '2024-03-01'])).toEqual([
      '2024-02-28',
      '2024-02-29',
    ]);
  });

  it('is never current for a membership that ends before it starts', () => {
    expect(
      currentOn('2025-03-20', '2025-03-10', [
        '2025-03-09',
        '2025-03-10',
        '2025-03-15',
        '2025-03-20',
        '2025-03-21',
      ]),
    ).toEqual([]);
  });
});
