export interface Clock {
  now(): Date;
  /** Today's calendar date in the directory's time zone, `YYYY-MM-DD`. */
  today(): string;
  /** The calendar date of that moment in the directory's time zone, `YYYY-MM-DD`. */
  dateOf(moment: Date): string;
}
