import { parsePositiveInteger, parseSince } from '../../../src/cli/parse-values';

describe('parsePositiveInteger', () => {
  it('takes 1 to 2147483647, the largest id stored, and refuses a larger number as usage, not a database failure', () => {
    expect(parsePositiveInteger('1', 'ID', 'people erase')).toBe(1);
    expect(parsePositiveInteger('2147483647', 'ID', 'people erase')).toBe(2147483647);
    for (const text of ['0', '2147483648', '999999999999999', '-1', '1.5', 'abc', '']) {
      expect(() => parsePositiveInteger(text, 'ID', 'people erase')).toThrow(
        `ID takes a positive whole number up to 2147483647, not "${text}"`,
      );
    }
  });
});

describe('parseSince', () => {
  it('takes a date or a full timestamp, and refuses anything else', () => {
    expect(parseSince('2024-05-01T18:00:00Z', 'UTC', 'audit').toISOString()).toBe('2024-05-01T18:00:00.000Z');
    expect(() => parseSince('yesterday', 'UTC', 'audit')).toThrow(/--since takes a date/);
    expect(() => parseSince('2024-02-30', 'UTC', 'audit')).toThrow(/--since takes a date/);
  });
});
