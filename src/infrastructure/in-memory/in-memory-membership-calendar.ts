import type {
  DueMembership,
  EndingMembership,
  LapsedMembership,
  MembershipCalendar,
  StandingChange,
} from '../../application/ports/membership-calendar';
import type { Grace } from '../../domain/grace';
import {
  hasEnded,
  hasStarted,
  isCurrentDayAfter,
  isNearItsEnd,
  type Membership,
} from '../../domain/membership';
import { isVisible } from '../../domain/person';
import { graceUntil, personStanding } from '../../domain/standing';
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

  async claimLapsed(today: string, grace: Grace, limit: number): Promise<LapsedMembership[]> {
    const due: (LapsedMembership & { endDate: string })[] = [];
    for (const person of this.store.state.people.values()) {
      if (person.erased) continue;
      for (const m of person.memberships) {
        const state = this.store.state.calendar.get(m.id);
        const lastGoodDay = lastGoodDayOf(m, grace);
        if (state === undefined || m.endDate === null || lastGoodDay === null) continue;
        if ((state.lapseAnnounced ?? null) !== null || !(lastGoodDay < today)) continue;
        due.push({
          id: m.id,
          personId: person.id,
          lastGoodDay,
          writtenAt: new Date(state.writtenAt),
          endDate: m.endDate,
        });
      }
    }
    return due
      .sort((a, b) => (a.endDate < b.endDate ? -1 : a.endDate > b.endDate ? 1 : a.id - b.id))
      .slice(0, limit)
      .map(({ endDate: _, ...lapsed }) => lapsed);
  }

  async markLapsesDealt(lapses: Pick<LapsedMembership, 'id' | 'lastGoodDay'>[]): Promise<void> {
    for (const { id, lastGoodDay } of lapses) {
      const state = this.store.state.calendar.get(id);
      if (state !== undefined) state.lapseAnnounced = lastGoodDay;
    }
  }

  async reconsiderLapses(today: string, grace: Grace): Promise<void> {
    for (const person of this.store.state.people.values()) {
      if (person.erased) continue;
      for (const m of person.memberships) {
        const state = this.store.state.calendar.get(m.id);
        const last = lastGoodDayOf(m, grace);
        if (state === undefined || (state.lapseAnnounced ?? null) === null || state.lapseAnnounced === last)
          continue;
        state.lapseAnnounced = last !== null && last < today ? last : null;
      }
    }
  }

  /** Everyone after `after` is read: the store has no write times, and reading more is only slower. */
  async advanceStandings(
    today: string,
    grace: Grace,
    batch: { after: number; limit: number; writtenWithinSeconds: number | null },
  ): Promise<{ lastId: number | null; changes: StandingChange[] }> {
    const read = [...this.store.state.people.values()]
      .filter((person) => person.id > batch.after && isVisible(person))
      .sort((a, b) => a.id - b.id)
      .slice(0, batch.limit);
    const changes: StandingChange[] = [];
    for (const person of read) {
      const to = personStanding(person.memberships, today, grace);
      const from = this.store.state.standings.get(person.id) ?? null;
      if (from === to) continue;
      this.store.state.standings.set(person.id, to);
      changes.push({ personId: person.id, from, to });
    }
    return { lastId: read.at(-1)?.id ?? null, changes };
  }
}

function lastGoodDayOf(membership: Membership, grace: Grace): string | null {
  return graceUntil(membership, grace) ?? membership.endDate;
}
