import { isVisible, MEMBER_NUMBER_MAX_LENGTH } from '../../domain/person';
import type { PersonIdentity } from '../ports/person-repository';
import type { Transaction } from '../ports/unit-of-work';

/**
 * A member number a spreadsheet stripped (SPEC §9): `41` where the directory has `000041`, because
 * the cell was read as a number. Such a record is refused naming its row, for CSV, XLSX and JSON
 * alike, rather than renumbering the member or adding them again as someone new.
 */

/**
 * The longest member number looked for by its leading zeros: a spreadsheet keeps 15 digits of a
 * number, and rosters pad to a handful; every padded form is one key of the unique index.
 */
const LONGEST_PADDED = Math.min(20, MEMBER_NUMBER_MAX_LENGTH);

const withoutZeros = (number: string) => number.replace(/^0+/, '');

/** Whether `given` is `stored` with some of its leading zeros gone. */
export function dropsLeadingZeros(given: string, stored: string): boolean {
  return (
    /^[0-9]+$/.test(given) && given.length < stored.length && withoutZeros(given) === withoutZeros(stored)
  );
}

export function droppedZerosMessage(where: string, given: string, holder: PersonIdentity): string {
  return (
    `${where}: member_number ${JSON.stringify(given)} differs from ${JSON.stringify(holder.memberNumber)}, ` +
    `person ${holder.id}'s, only by leading zeros (a spreadsheet drops them from a cell it reads as a number); ` +
    `write ${JSON.stringify(holder.memberNumber)}, keeping the column as text`
  );
}

/**
 * The members whose number is one of these with leading zeros added, by the number given: asked
 * only for the numbers that name nobody, so a re-import that finds everyone asks nothing more.
 */
export async function holdersWithZeros(
  tx: Transaction,
  numbers: string[],
): Promise<Map<string, PersonIdentity>> {
  const forms = new Map<string, string>();
  for (const given of numbers) {
    if (!/^[0-9]+$/.test(given)) continue;
    for (let padded = `0${given}`; padded.length <= LONGEST_PADDED; padded = `0${padded}`) {
      forms.set(padded, given);
    }
  }
  const holders = new Map<string, PersonIdentity>();
  if (forms.size === 0) return holders;
  const found = await tx.people.findIdentities({ ids: [], memberNumbers: [...forms.keys()], chatIds: [] });
  for (const person of found) {
    const given = person.memberNumber === null ? undefined : forms.get(person.memberNumber);
    if (given !== undefined && isVisible(person) && !holders.has(given)) holders.set(given, person);
  }
  return holders;
}

/** Who a refused row names: its member number, and its id when the row has a readable one. */
export interface RefusedRecordNames {
  memberNumber: string;
  id: number | null;
}

/** Looked up this many at a time, as the import's other lookups are. */
const LOOKUP_BATCH = 5000;

/**
 * Dropped leading zeros in the records the reader refused (a bad date in the same row, say): a
 * sheet that went through a spreadsheet program has both on every row, and the secretary should
 * hear of both at once. A record naming someone by id is compared with that person's number;
 * one without, with the members whose number is its own with zeros before it.
 */
export async function droppedZerosInRefused(
  tx: Transaction,
  records: { index: number; where: string; names: RefusedRecordNames }[],
): Promise<{ index: number; message: string }[]> {
  const found: { index: number; message: string }[] = [];
  for (let start = 0; start < records.length; start += LOOKUP_BATCH) {
    const batch = records.slice(start, start + LOOKUP_BATCH);
    const ids = batch.flatMap(({ names }) => (names.id === null ? [] : [names.id]));
    const numbers = batch.flatMap(({ names }) => (names.id === null ? [names.memberNumber] : []));
    const known = await tx.people.findIdentities({ ids, memberNumbers: numbers, chatIds: [] });
    const byId = new Map(known.map((person) => [person.id, person]));
    const taken = new Set(known.map((person) => person.memberNumber));
    const holders = await holdersWithZeros(
      tx,
      numbers.filter((number) => !taken.has(number)),
    );
    for (const { index, where, names } of batch) {
      const holder = names.id === null ? holders.get(names.memberNumber) : byId.get(names.id);
      if (
        holder !== undefined &&
        isVisible(holder) &&
        holder.memberNumber !== null &&
        dropsLeadingZeros(names.memberNumber, holder.memberNumber)
      ) {
        found.push({ index, message: droppedZerosMessage(where, names.memberNumber, holder) });
      }
    }
  }
  return found;
}
