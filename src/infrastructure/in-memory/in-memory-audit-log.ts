import type { AuditLog, AuditQuery } from '../../application/ports/audit-log';
import type { Clock } from '../../application/ports/clock';
import type { AuditEntry, NewAuditEntry } from '../../domain/audit-entry';
import { REDACTED } from '../../domain/audit-entry';
import { copy, type InMemoryStore } from './in-memory-store';

/** Entries about a person: the person's record and the account attached to it. */
const PERSON_SUBJECTS = ['person', 'account'];

export class InMemoryAuditLog implements AuditLog {
  constructor(
    private readonly store: InMemoryStore,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  async record(entries: NewAuditEntry[]): Promise<void> {
    const at = this.clock.now();
    for (const entry of entries) {
      this.store.state.audit.push({ id: this.store.id('audit'), at: new Date(at), ...copy(entry) });
    }
  }

  async redactAbout(personIds: number[]): Promise<void> {
    const ids = new Set(personIds);
    for (const entry of this.store.state.audit) {
      if (!PERSON_SUBJECTS.includes(entry.subjectType) || !ids.has(entry.subjectId)) continue;
      if (entry.oldValue !== null) entry.oldValue = REDACTED;
      if (entry.newValue !== null) entry.newValue = REDACTED;
    }
  }

  async list({ personId, since, limit }: AuditQuery): Promise<AuditEntry[]> {
    const found = this.store.state.audit
      .filter(
        (e) =>
          personId === undefined ||
          e.actorAccountId === personId ||
          (PERSON_SUBJECTS.includes(e.subjectType) && e.subjectId === personId),
      )
      .filter((e) => since === undefined || e.at.getTime() >= since.getTime())
      .sort((a, b) => b.at.getTime() - a.at.getTime() || b.id - a.id);
    return copy(limit === undefined ? found : found.slice(0, limit));
  }
}
