import { parseSince } from '../../../src/cli/parse-values';

describe('parseSince', () => {
  it('takes a date or a full timestamp, and refuses anything else', () => {
    expect(parseSince('2024-05-01T18:00:00Z', 'UTC', 'audit').toISOString()).toBe('2024-05-01T18:00:00.000Z');
    expect(() => parseSince('yesterday', 'UTC', 'audit')).toThrow(/--since takes a date/);
    expect(() => parseSince('2024-02-30', 'UTC', 'audit')).toThrow(/--since takes a date/);
  });
});
