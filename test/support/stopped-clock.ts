import { SystemClock } from '../../src/infrastructure/system-clock';

/** The directory's real clock in its time zone, stopped at a moment the test moves. */
export class StoppedClock extends SystemClock {
  private moment: Date;

  constructor(timeZone: string, iso: string) {
    super(timeZone);
    this.moment = new Date(iso);
  }

  override now(): Date {
    return new Date(this.moment);
  }

  set(iso: string): void {
    this.moment = new Date(iso);
  }
}
