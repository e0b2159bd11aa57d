import type { Person } from './api';

export function fullName(person: Person): string {
  return `${person.first_name} ${person.last_name}`;
}

export function firstContact(person: Person, kind: 'email' | 'phone' | 'address'): string | null {
  return person.contacts.find((contact) => contact.kind === kind)?.value ?? null;
}

/** A person's standing (SPEC §10) as the desk says it: a word, not the API's code. */
export function standingWord(person: Person): string {
  return STANDING_WORDS[person.standing];
}

const STANDING_WORDS: Record<Person['standing'], string> = {
  current: 'current',
  grace: 'in grace',
  pending: 'starts later',
  lapsed: 'lapsed',
  none: 'no membership',
};

/** The last day of grace among the memberships in grace (null: none in grace). */
export function graceUntil(person: Person): string | null {
  const days = person.memberships
    .filter((membership) => membership.status === 'grace' && membership.grace_until !== null)
    .map((membership) => membership.grace_until as string)
    .sort();
  return days.at(-1) ?? null;
}

export function isCurrent(person: Person): boolean {
  return person.memberships.some((membership) => membership.current);
}

/** The last day of membership as recorded: the latest end among current memberships (null: open-ended). */
export function currentUntil(person: Person): string | null {
  const current = person.memberships.filter((membership) => membership.current);
  if (current.length === 0 || current.some((membership) => membership.end_date === null)) return null;
  return current.map((membership) => membership.end_date as string).sort()[current.length - 1];
}

/** Today's date in the browser's time zone, plus `months` months, as YYYY-MM-DD. */
export function isoDate(date: Date, months = 0): string {
  const shifted = new Date(date.getFullYear(), date.getMonth() + months, date.getDate());
  // The 31st of a month with 30 days rolls over: the last day of the intended month instead.
  if (months !== 0 && shifted.getDate() !== date.getDate()) shifted.setDate(0);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${shifted.getFullYear()}-${pad(shifted.getMonth() + 1)}-${pad(shifted.getDate())}`;
}
