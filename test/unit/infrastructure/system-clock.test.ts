import { SystemClock } from '../../../src/infrastructure/system-clock';

describe('SystemClock', () => {
  it("gives today's date in the directory's time zone as YYYY-MM-DD", () => {
    jest.useFakeTimers({ now: new Date('2025-12-31T23:30:00Z') });
    try {
      expect(new SystemClock('UTC').today()).toBe('2025-12-31');
      expect(new SystemClock('Europe/Berlin').today()).toBe('2026-01-01');
      expect(new SystemClock('America/New_York').today()).toBe('2025-12-31');
    } finally {
      jest.useRealTimers();
    }
  });

  it("keeps a clock's date only until the minute its zone turns midnight", () => {
    jest.useFakeTimers({ now: new Date('2026-03-28T22:59:59.999Z') });
    try {
      const kolkata = new SystemClock('Asia/Kolkata'); // UTC+5:30: midnight falls at hh:30 UTC
      const berlin = new SystemClock('Europe/Berlin');
      jest.setSystemTime(new Date('2026-03-28T18:29:59.999Z'));
      expect(kolkata.today()).toBe('2026-03-28');
      jest.setSystemTime(new Date('2026-03-28T18:30:00.000Z'));
      expect(kolkata.today()).toBe('2026-03-29');
      jest.setSystemTime(new Date('2026-03-28T22:59:59.999Z'));
      expect(berlin.today()).toBe('2026-03-28');
      jest.setSystemTime(new Date('2026-03-28T23:00:00.000Z'));
      expect(berlin.today()).toBe('2026-03-29');
      // Clocks going forward in the night (Berlin, 29 March 2026) change nothing about it.
      jest.setSystemTime(new Date('2026-03-29T21:59:59.999Z'));
      expect(berlin.today()).toBe('2026-03-29');
      jest.setSystemTime(new Date('2026-03-29T22:00:00.000Z'));
      expect(berlin.today()).toBe('2026-03-30');
    } finally {
      jest.useRealTimers();
    }
  });

  it('gives the current time', () => {
    const before = Date.now();
    const now = new SystemClock('UTC').now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
