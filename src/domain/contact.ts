export const CONTACT_KINDS = ['email', 'phone', 'address'] as const;

export type ContactKind = (typeof CONTACT_KINDS)[number];

/** An email, phone number or address holds at most this many characters. */
export const CONTACT_VALUE_MAX_LENGTH = 1000;

/**
 * What an email must look like: one @ with something on either side and no spaces. Deliberately
 * loose: real validation of an address is sending it mail, which is not the directory's job.
 */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

export interface Contact {
  id: number;
  kind: ContactKind;
  /** An address is one multi-line string. */
  value: string;
  label: string | null;
}

export function isContactKind(value: unknown): value is ContactKind {
  return typeof value === 'string' && (CONTACT_KINDS as readonly string[]).includes(value);
}

const KIND_ORDER: Record<ContactKind, number> = { email: 0, phone: 1, address: 2 };

/** Contacts are shown ordered by kind, then id. */
export function compareContacts(a: Pick<Contact, 'id' | 'kind'>, b: Pick<Contact, 'id' | 'kind'>): number {
  return KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.id - b.id;
}

/**
 * compareContacts as an SQL ORDER BY list over `c`, the alias of a `contacts` row, for the
 * statements that read a person's contacts; test/integration/persistence/rules-in-sql.test.ts
 * holds the two orders equal.
 */
export function contactOrderSql(c: string): string {
  return `CASE ${c}.kind WHEN 'email' THEN 0 WHEN 'phone' THEN 1 ELSE 2 END, ${c}.id`;
}
