import { startOfDay } from '../../../src/cli/start-of-day';

describe('startOfDay', () => {
  it('is midnight of that calendar day in the time zone', () => {
    expect(startOfDay('2024-05-01', 'UTC').toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect(startOfDay('2024-05-01', 'Europe/Berlin').toISOString()).toBe('2024-04-30T22:00:00.000Z');
    expect(startOfDay('2024-01-15', 'America/New_York').toISOString()).toBe('2024-01-15T05:00:00.000Z');
    expect(startOfDay('2024-03-31', 'Europe/London').toISOString()).toBe('2024-03-31T00:00:00.000Z');
  });
});
