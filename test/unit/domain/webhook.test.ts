import { RETRY_SCHEDULE_MS, retryDelayMs, webhookUrlProblem } from '../../../src/domain/webhook';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('retryDelayMs', () => {
  it('follows about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((failures) => retryDelayMs(failures, null, middle))).toEqual([
      5000,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
      10 * HOUR,
    ]);
  });

  it('spreads each wait by 20 % either way', () => {
    expect(retryDelayMs(1, null, () => 0)).toBe(4000);
    expect(retryDelayMs(1, null, () => 0.999999)).toBe(6000);
    expect(retryDelayMs(6, null, () => 0)).toBe(8 * HOUR);
  });

  it('waits at least as long as Retry-After asks, but no longer than the longest step', () => {
    expect(retryDelayMs(1, 120_000, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(3, 1000, () => 0.5)).toBe(30 * MINUTE);
    expect(retryDelayMs(1, 400 * HOUR, () => 0.5)).toBe(RETRY_SCHEDULE_MS[RETRY_SCHEDULE_MS.length - 1]);
  });
});

describe('webhookUrlProblem', () => {
  it.each([
    'https://bot.example.org/hooks',
    'http://127.0.0.1:4000/x',
    'http://10.0.0.7/hooks?token=a',
    'http://[::1]:8080/',
  ])('accepts %s', (url) => {
    expect(webhookUrlProblem(url)).toBeNull();
  });

  it.each([
    ['ftp://example.org/x', /only http and https/],
    ['file:///etc/passwd', /only http and https/],
    ['https://user@example.org/x', /user name or password/],
    ['https://:secret@example.org/x', /user name or password/],
    ['https://example.org/x#frag', /fragment/],
    ['not a url', /is not a URL/],
  ])('refuses %s', (url, reason) => {
    expect(webhookUrlProblem(url)).toMatch(reason);
  });
});
