export const CONTACT_KINDS = ['email', 'phone', 'address'] as const;

export type ContactKind = (typeof CONTACT_KINDS)[number];

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
export function compareContacts(a: Contact, b: Contact): number {
  return KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.id - b.id;
}
