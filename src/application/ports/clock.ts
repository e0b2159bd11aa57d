export interface Clock {
  now(): Date;
  /** Today's calendar date in the directory's time zone, `YYYY-MM-DD`. */
  today(): string;
}
