import { isCurrentDayAfter, isEndingBefore, isNearItsEnd, lastsUntil } from '../../../src/domain/membership';

const period = (startDate: string, endDate: string | null) => ({ startDate, endDate });

describe('lastsUntil', () => {
  it('holds when the membership ends on the day or later, or never ends, whatever its start', () => {
    expect(lastsUntil(period('2030-01-01', '2030-12-31'), '2030-12-31')).toBe(true);
    expect(lastsUntil(period('2030-01-01', '2030-12-31'), '2031-01-01')).toBe(false);
    expect(lastsUntil(period('2035-01-01', '2035-12-31'), '2030-01-01')).toBe(true);
    expect(lastsUntil(period('2030-01-01', null), '9999-12-31')).toBe(true);
  });
});

describe('isCurrentDayAfter', () => {
  it('is isCurrent on the next day, across a month end and a leap day', () => {
    const leap = period('2028-02-29', '2028-02-29');
    expect(isCurrentDayAfter(leap, '2028-02-28')).toBe(true);
    expect(isCurrentDayAfter(leap, '2028-02-29')).toBe(false);
    expect(isCurrentDayAfter(period('2028-03-01', null), '2028-02-29')).toBe(true);
  });

  it('answers for the last day of year 9999, whose next day has no four-digit year', () => {
    expect(isCurrentDayAfter(period('2030-01-01', null), '9999-12-31')).toBe(true);
    expect(isCurrentDayAfter(period('2030-01-01', '9999-12-31'), '9999-12-31')).toBe(false);
  });
});

describe('isEndingBefore', () => {
  const today = '2030-06-01';

  it('holds for a current membership that ends by the date', () => {
    expect(isEndingBefore([period('2030-01-01', '2030-06-30')], today, '2030-06-30')).toBe(true);
    expect(isEndingBefore([period('2030-01-01', '2030-07-01')], today, '2030-06-30')).toBe(false);
  });

  it('does not hold once a renewal covering the day after is recorded', () => {
    const renewed = [period('2030-01-01', '2030-06-30'), period('2030-07-01', '2031-06-30')];
    expect(isEndingBefore(renewed, today, '2030-06-30')).toBe(false);
  });

  it('does not hold for someone not current today', () => {
    expect(isEndingBefore([period('2030-07-01', '2030-07-31')], today, '2030-08-31')).toBe(false);
    expect(isEndingBefore([], today, '2030-08-31')).toBe(false);
  });
});

describe('isNearItsEnd', () => {
  it('holds for a current membership whose end is at most that many days away', () => {
    const ending = period('2030-01-01', '2030-06-30');
    expect(isNearItsEnd(ending, '2030-06-01', 29)).toBe(true);
    expect(isNearItsEnd(ending, '2030-06-01', 28)).toBe(false);
    expect(isNearItsEnd(ending, '2030-06-30', 0)).toBe(true);
  });

  it('never holds without an end date, nor once the membership has ended', () => {
    expect(isNearItsEnd(period('2030-01-01', null), '2030-06-01', 365)).toBe(false);
    expect(isNearItsEnd(period('2030-01-01', '2030-06-30'), '2030-07-01', 30)).toBe(false);
  });
});
