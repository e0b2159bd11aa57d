import type { Person } from './api';

export function fullName(person: Person): string {
  return `${person.first_name} ${person.last_name}`;
}

export function firstContact(person: Person, kind: 'email' | 'phone' | 'address'): string | null {
  return person.contacts.find((contact) => contact.kind === kind)?.value ?? null;
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
