import type { Clock } from '../application/ports/clock';

/** The real time, and today's date in the directory's time zone (which decides "current"). */
export class SystemClock implements Clock {
  // Building a DateTimeFormat is costly compared with using one; today() runs on every search.
  private readonly formatter: Intl.DateTimeFormat;
  private cachedMinute = Number.NaN;
  private cachedDate = '';

  constructor(timeZone: string) {
    this.formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
  }

  now(): Date {
    return new Date();
  }

  today(): string {
    // Every time zone's offset is a whole number of minutes, so the date changes only on the
    // minute: it is formatted once a minute, not on every search.
    const now = this.now();
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== this.cachedMinute) {
      this.cachedDate = this.dateOf(now);
      this.cachedMinute = minute;
    }
    return this.cachedDate;
  }

  dateOf(moment: Date): string {
    // formatToParts rather than format: the en-CA pattern is YYYY-MM-DD today, but parts do not
    // depend on how a future ICU lays out the locale.
    const parts = this.formatter.formatToParts(moment);
    const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
    return `${part('year')}-${part('month')}-${part('day')}`;
  }
}
