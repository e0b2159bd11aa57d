import type { Clock } from '../../../src/application/ports/clock';

/** A clock that moves only when told; dates are UTC dates. */
export class FakeClock implements Clock {
  private current: Date;

  constructor(start = '2025-03-15T12:00:00Z') {
    this.current = new Date(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  today(): string {
    return this.dateOf(this.current);
  }

  dateOf(moment: Date): string {
    return moment.toISOString().slice(0, 10);
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }

  set(iso: string): void {
    this.current = new Date(iso);
  }
}
