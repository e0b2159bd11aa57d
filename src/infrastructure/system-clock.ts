import type { Clock } from '../application/ports/clock';

/** The real time, and today's date in the directory's time zone (which decides "current"). */
export class SystemClock implements Clock {
  // Building a DateTimeFormat is costly compared with using one; today() runs on every search.
  private readonly formatter: Intl.DateTimeFormat;

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
    // formatToParts rather than format: the en-CA pattern is YYYY-MM-DD today, but parts do not
    // depend on how a future ICU lays out the locale.
    const parts = this.formatter.formatToParts(this.now());
    const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
    return `${part('year')}-${part('month')}-${part('day')}`;
  }
}
