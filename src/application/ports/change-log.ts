import type { FieldName } from '../../domain/person';
/** Every type of change the feed and webhooks carry (SPEC §7, §9), in the order documents list them. */
export const CHANGE_TYPES = [
  'person.created',
  'person.updated',
  'person.erased',
  'person.removed',
  'person.standing_changed',
  'membership.started',
  'membership.ending',
  'membership.ended',
  'membership.lapsed',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];
/** Field names as the API spells them. */
export type ChangedField = FieldName | 'contacts' | 'memberships' | 'standing';
export interface NewChange {
  type: ChangeType;
  personId: number;
  /** person.updated: what changed; person.standing_changed: `standing`; null for the other types. */
  fields: ChangedField[] | null;
  /** The API key that made the change; null for the command line and the calendar. */
  byKeyId: number | null;
}
/** A change as the log keeps it: `seq` orders the feed, `at` is when its transaction ran. */
export interface Change extends NewChange {
  seq: number;
  at: Date;
}

export interface ChangeLog {
  /** Records changes in the current transaction (an outbox): they commit or roll back with it. */
  record(changes: NewChange[]): Promise<void>;
  /** The committed changes about one person, in seq order (for a subject access request). */
  listAbout(personId: number): Promise<Change[]>;
}
