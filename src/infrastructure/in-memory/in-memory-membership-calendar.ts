import type { DueMembership, MembershipCalendar } from '../../application/ports/membership-calendar';
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
        const startDue = !state.startAnnounced && m.startDate <= today;
        const endDue = !state.endAnnounced && m.endDate !== null && m.endDate < today;
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
}
