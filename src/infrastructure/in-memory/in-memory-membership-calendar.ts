import type {
  DueMembership,
  EndingMembership,
  MembershipCalendar,
} from '../../application/ports/membership-calendar';
import { hasEnded, hasStarted, isCurrentDayAfter, isNearItsEnd } from '../../domain/membership';
import type { InMemoryStore } from './in-memory-store';

/** Units of work run one at a time here: nothing to skip. */
export class InMemoryMembershipCalendar implements MembershipCalendar {
  constructor(private readonly store: InMemoryStore) {}

  async claimDue(today: string, limit: number): Promise<DueMembership[]> {
    const due: DueMembership[] = [];
    for (const person of this.store.state.people.values()) {
      for (const m of person.memberships) {
        const state = this.store.state.calendar.get(m.id);
        if (state === undefined) continue;
        const startDue = !state.startAnnounced && hasStarted(m, today);
        const endDue = !state.endAnnounced && hasEnded(m, today);
        if (!(startDue || endDue)) continue;
        due.push({
          id: m.id,
          personId: person.id,
          startDate: m.startDate,
          endDate: m.endDate,
          startDue,
          endDue,
          writtenAt: new Date(state.writtenAt),
        });
      }
    }
    return due.sort((a, b) => a.id - b.id).slice(0, limit);
  }

  async markDone(started: number[], ended: number[]): Promise<void> {
    for (const id of started) {
      const state = this.store.state.calendar.get(id);
      if (state !== undefined) state.startAnnounced = true;
    }
    for (const id of ended) {
      const state = this.store.state.calendar.get(id);
      if (state !== undefined) state.endAnnounced = true;
    }
  }

  async claimEnding(today: string, noticeDays: number, limit: number): Promise<EndingMembership[]> {
    const due: EndingMembership[] = [];
    for (const person of this.store.state.people.values()) {
      if (person.erased) continue;
      for (const m of person.memberships) {
        const state = this.store.state.calendar.get(m.id);
        if (state === undefined || m.endDate === null || state.endingAnnounced === m.endDate) continue;
        if (!isNearItsEnd(m, today, noticeDays)) continue;
        const endDate = m.endDate;
        if (person.memberships.some((other) => isCurrentDayAfter(other, endDate))) continue;
        due.push({ id: m.id, personId: person.id, endDate });
      }
    }
    return due
      .sort((a, b) => (a.endDate < b.endDate ? -1 : a.endDate > b.endDate ? 1 : a.id - b.id))
      .slice(0, limit);
  }

  async markEndingTold(ids: number[]): Promise<void> {
    const wanted = new Set(ids);
    for (const person of this.store.state.people.values()) {
      for (const m of person.memberships) {
        const state = this.store.state.calendar.get(m.id);
        if (state !== undefined && wanted.has(m.id)) state.endingAnnounced = m.endDate;
      }
    }
  }
}
