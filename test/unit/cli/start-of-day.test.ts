import { parseSince } from '../../../src/cli/parse-values';
import { startOfDay } from '../../../src/cli/start-of-day';

describe('startOfDay', () => {
  it('is midnight of that calendar day in the time zone', () => {
    expect(startOfDay('2024-05-01', 'UTC').toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect(startOfDay('2024-05-01', 'Europe/Berlin').toISOString()).toBe('2024-04-30T22:00:00.000Z');
    expect(startOfDay('2024-01-15', 'America/New_York').toISOString()).toBe('2024-01-15T05:00:00.000Z');
    expect(startOfDay('2024-03-31', 'Europe/London').toISOString()).toBe('2024-03-31T00:00:00.000Z');
  });
});

describe('parseSince', () => {
  it('takes a date or a full timestamp, and refuses anything else', () => {
    expect(parseSince('2024-05-01T18:00:00Z', 'UTC', 'audit').toISOString()).toBe('2024-05-01T18:00:00.000Z');
    expect(() => parseSince('yesterday', 'UTC', 'audit')).toThrow(/--since takes a date/);
    expect(() => parseSince('2024-02-30', 'UTC', 'audit')).toThrow(/--since takes a date/);
  });
});
