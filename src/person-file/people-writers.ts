import type { Writable } from 'node:stream';
import { type ContactKind } from '../domain/contact';
import { isCurrent, type Membership } from '../domain/membership';
import type { Grace } from '../domain/grace';
import type { Person } from '../domain/person';
import { graceUntil, personStanding } from '../domain/standing';
import { CSV_BYTE_ORDER_MARK, csvLine } from './csv-line';
import { toPersonRecord } from './person-file-record';
import { SHEET_COLUMNS } from './sheet-rows';

/** What an export writer is handed: a function that gives it each person, and says how many. */
export type PeopleProducer = (
  write: (person: Person, today: string, grace: Grace) => Promise<void>,
) => Promise<{ people: number }>;

// Text is gathered into chunks of about this size before a write: fewer, larger writes.
const CHUNK_CHARACTERS = 64 * 1024;

/** The columns of `export --format csv --current`: a mail merge's list (SPEC §9). */
export const CURRENT_CSV_COLUMNS = [
  'first_name',
  'last_name',
  'member_number',
  'email',
  'phone',
  'address',
  'club',
  'end_date',
  // Computed, of the row's membership and person (SPEC §10): for reading, never imported back.
  'standing',
  'grace_until',
] as const;

/**
 * Writes text in chunks, waiting for the stream to drain when its buffer is full: memory stays
 * bounded. An output that goes away (a download cancelled) closes without draining: the rest is
 * let go rather than waited for, or the export, and its transaction, would wait for ever.
 */
function chunked(out: Writable): { add: (text: string) => Promise<void>; end: () => Promise<void> } {
  let buffer = '';
  const flush = async () => {
    const text = buffer;
    buffer = '';
    if (out.destroyed || out.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        resolve();
      };
      out.once('drain', done);
      out.once('close', done);
    });
  };
  return {
    add: async (text) => {
      buffer += text;
      if (buffer.length >= CHUNK_CHARACTERS) await flush();
    },
    end: async () => {
      if (buffer !== '') await flush();
    },
  };
}

/** The JSON array `import` reads (SPEC §5, §6), one person a line. */
export async function writeJsonPeople(out: Writable, produce: PeopleProducer): Promise<number> {
  const text = chunked(out);
  let first = true;
  await text.add('[');
  const { people } = await produce(async (person) => {
    await text.add(`${first ? '\n' : ',\n'}${JSON.stringify(toPersonRecord(person))}`);
    first = false;
  });
  await text.add(first ? ']\n' : '\n]\n');
  await text.end();
  return people;
}

/** A person's contacts come ordered by kind, then id (SPEC §1): the first of a kind is the first found. */
function firstContact(person: Person, kind: ContactKind): string {
  return person.contacts.find((c) => c.kind === kind)?.value ?? '';
}

/** The header of the spreadsheet layout (SPEC §9): the full one, or the mail merge's. */
export function sheetColumns(options: { current?: boolean }): readonly string[] {
  return options.current ? CURRENT_CSV_COLUMNS : SHEET_COLUMNS;
}

/**
 * A person's rows in the spreadsheet layout, the CSV's and the XLSX's alike (SPEC §9), which the
 * import reads back unchanged: one row per membership (a person without one is one row with those
 * cells empty), the person's columns on each. With `current` (the export then gives current
 * members only), one row for a mail merge, with the membership current today that ends last.
 */
export function sheetRows(
  person: Person,
  today: string,
  grace: Grace,
  options: { current?: boolean },
): (string | number | null)[][] {
  const email = firstContact(person, 'email');
  const phone = firstContact(person, 'phone');
  const address = firstContact(person, 'address');
  if (options.current) {
    const membership = lastEnding(person.memberships.filter((m) => isCurrent(m, today)));
    return [
      [
        person.firstName,
        person.lastName,
        person.memberNumber,
        email,
        phone,
        address,
        membership?.club.name ?? '',
        membership?.endDate ?? '',
        personStanding(person.memberships, today, grace),
        (membership && graceUntil(membership, grace)) ?? '',
      ],
    ];
  }
  const own = [
    person.id,
    person.memberNumber,
    person.firstName,
    person.lastName,
    email,
    phone,
    address,
    person.chatId,
    person.plannerId,
  ];
  const memberships = person.memberships.length === 0 ? [null] : person.memberships;
  return memberships.map((m) => [
    ...own,
    m?.club.name ?? '',
    m?.kind ?? '',
    m?.startDate ?? '',
    m?.endDate ?? '',
  ]);
}

/**
 * The spreadsheet of SPEC §9 as CSV (sheetRows). UTF-8 with a byte order mark, by which
 * spreadsheet programs tell UTF-8 from their own code page (the import takes it, or none).
 */
export async function writeCsvPeople(
  out: Writable,
  produce: PeopleProducer,
  options: { current?: boolean } = {},
): Promise<number> {
  const text = chunked(out);
  await text.add(`${CSV_BYTE_ORDER_MARK}${csvLine(sheetColumns(options))}`);
  const { people } = await produce(async (person, today, grace) => {
    for (const row of sheetRows(person, today, grace, options)) await text.add(csvLine(row));
  });
  await text.end();
  return people;
}

/** Of these memberships, the one that ends last (open-ended ends last of all). */
function lastEnding(memberships: Membership[]): Membership | undefined {
  let best: Membership | undefined;
  for (const m of memberships) {
    if (best === undefined) best = m;
    else if (best.endDate !== null && (m.endDate === null || m.endDate > best.endDate)) best = m;
  }
  return best;
}
