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

  it('gives the current time', () => {
    const before = Date.now();
    const now = new SystemClock('UTC').now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
