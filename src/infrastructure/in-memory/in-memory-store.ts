import { randomUUID } from 'node:crypto';
import type { Change } from '../../application/ports/change-log';
import type { Account } from '../../domain/account';
import type { ApiKey } from '../../domain/api-key';
import type { AuditEntry } from '../../domain/audit-entry';
import type { Club } from '../../domain/club';
import type { Person } from '../../domain/person';

export type StoredCredentials = Omit<Account, 'personId' | 'role'>;

export interface StoredPerson extends Person {
  account: StoredCredentials | null;
}

export interface StoredKey extends ApiKey {
  tokenHash: string;
}

interface State {
  people: Map<number, StoredPerson>;
  keys: Map<number, StoredKey>;
  audit: AuditEntry[];
  changes: Change[];
  /** What directory_meta holds in a database. */
  directory: { id: string; changesPrunedThrough: number };
  /** Per membership id, what the memberships table's calendar columns hold. */
  calendar: Map<
    number,
    {
      startAnnounced: boolean;
      endAnnounced: boolean;
      writtenAt: Date;
      /** The end date whose renewal notice was told; absent: none told. */
      endingAnnounced?: string | null;
      /** The last good day whose lapse was dealt with; absent: none. */
      lapseAnnounced?: string | null;
    }
  >;
  /** Per person id, the standing the calendar last told or first saw (people.standing_announced). */
  standings: Map<number, string>;
  clubs: Map<string, Club>;
  nextId: {
    person: number;
    contact: number;
    membership: number;
    club: number;
    key: number;
    audit: number;
    change: number;
  };
}

function emptyState(): State {
  return {
    people: new Map(),
    keys: new Map(),
    audit: [],
    changes: [],
    directory: { id: randomUUID(), changesPrunedThrough: 0 },
    calendar: new Map(),
    standings: new Map(),
    clubs: new Map(),
    nextId: { person: 1, contact: 1, membership: 1, club: 1, key: 1, audit: 1, change: 1 },
  };
}

/** The rows every in-memory adapter shares, with a snapshot to undo a failed unit of work. */
export class InMemoryStore {
  state: State = emptyState();

  id(kind: keyof State['nextId']): number {
    return this.state.nextId[kind]++;
  }

  snapshot(): State {
    return structuredClone(this.state);
  }

  restore(snapshot: State): void {
    this.state = snapshot;
  }
}

/** Callers get copies: changing a returned object must not change the store, as with a database. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * A stored person as the domain's Person: a copy, its credentials left out. The store keeps domain
 * objects, so nothing else is mapped (the database's rows are mapped by toPerson, person-select.ts).
 */
export function copyPerson(stored: StoredPerson): Person {
  const { account: _account, ...person } = stored;
  return copy(person);
}
