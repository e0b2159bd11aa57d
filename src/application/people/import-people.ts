import type { NewAuditEntry } from '../../domain/audit-entry';
import { isVisible, type Person } from '../../domain/person';
import { foldCase } from '../../domain/text';
import type { Principal } from '../principal';
import type { NewChange } from '../ports/change-log';
import type { Clock } from '../ports/clock';
import type { NewPerson, PersonIdentity, PersonReplacement } from '../ports/person-repository';
import type { Spool, Spools } from '../ports/spool';
import type { Transaction, UnitOfWork } from '../ports/unit-of-work';
import {
  droppedZerosInRefused,
  droppedZerosMessage,
  dropsLeadingZeros,
  holdersWithZeros,
  type RefusedRecordNames,
} from './dropped-zeros';
import { erasePeople } from './erase-people';
import { ImportProblems, type ProblemKind } from './import-problems';
import { diffPerson, type FieldChange, type WantedPerson } from './person-diff';

/**
 * A person as a record of the file brings them, checked; `id` or `memberNumber` may name someone.
 * A field left out (undefined) is kept as it is (SPEC §6).
 */
export interface IncomingPerson extends WantedPerson {
  id: number | null;
}

/**
 * One record of the file: checked, or the problems found in it, each a whole message naming where
 * it is. `index` orders the records; `where` is how messages name it: "record 3" (a JSON file,
 * counted from 0) or "row 5" (a spreadsheet's row, the header being row 1).
 */
export type IncomingRecord =
  | { index: number; where: string; person: IncomingPerson }
  | {
      index: number;
      where: string;
      problems: string[];
      /**
       * Who a refused spreadsheet row names, as its cells say: still checked for a member number
       * that lost its leading zeros, so that the dry run lists that problem with the others.
       */
      names?: RefusedRecordNames;
    };

/** Why a person an import adds may be someone the directory already has. */
export type LookalikeReason = 'same email' | 'same names';

/** What the import does, or in a dry run would do, to one person. */
export type PlannedChange =
  | { kind: 'add'; index: number; where: string; firstName: string; lastName: string }
  | {
      kind: 'update';
      index: number;
      where: string;
      personId: number;
      /** The person's names once updated. */
      firstName: string;
      lastName: string;
      changes: FieldChange[];
    }
  | { kind: 'erase'; person: PersonIdentity }
  /** A member no record names who holds an account: listed, never erased by an import. */
  | { kind: 'keep'; person: PersonIdentity }
  /**
   * A record that adds a person sharing an email or both names with a member (SPEC §6): added all
   * the same, and listed. The names are the member's.
   */
  | {
      kind: 'duplicate';
      index: number;
      where: string;
      personId: number;
      firstName: string;
      lastName: string;
      reason: LookalikeReason;
    };

export interface ImportPeopleInput {
  /**
   * The records of the file, read once (SPEC §6): the import keeps those it checked (in a spool)
   * and writes exactly them, so that a file changing while it is read, or a pipe, cannot bring it
   * anything unchecked.
   */
  records: AsyncIterable<IncomingRecord>;
  /** Who imports over HTTP: audited with the key. Absent for the command line. */
  principal?: Principal;
  /** Check and report, write nothing. */
  dryRun?: boolean;
  /** Erase the members no record names (not those holding an account: they are listed). */
  removeMissing?: boolean;
  /**
   * Admins and erased people are nobody, as the API shows them (HTTP): a record naming one is
   * told that its id names no person, and a number an admin holds is not told whose it is; and a
   * record may not make anyone an admin.
   */
  membersOnly?: boolean;
  /** Each planned change as it is found; awaited, so that a slow reader holds back the import. */
  onChange?: (change: PlannedChange) => Promise<void> | void;
  /**
   * Asked, in the import's transaction, once every record has passed its own checks and the people
   * the records name are found (and, unless a dry run, locked), before their chat_ids and member
   * numbers are checked against the directory and before anything is written: who each record
   * names, by record index (records that add someone are not in it). What it throws ends the
   * import, nothing written. Not asked when a problem was found already.
   */
  confirm?: (tx: Transaction, named: ReadonlyMap<number, number>) => Promise<void>;
  /** Each person added, by record index and new id, as they are written (never in a dry run). */
  onAdded?: (index: number, personId: number) => void;
  /** Called after each batch, for a progress bar: records done, and all of them. */
  onProgress?: (done: number, total: number) => void;
}

export interface ImportPeopleOutput {
  added: number;
  updated: number;
  unchanged: number;
  erased: number;
  /** Members no record named who were kept because they hold an account (with --remove-missing). */
  kept: number;
  /** Records that add a person who may already be in the directory (listed, added all the same). */
  possibleDuplicates: number;
}

// Big enough that a large file needs few round trips, small enough that a batch of people with
// their children stays a few megabytes.
const BATCH_SIZE = 1000;
const LOOKUP_BATCH_SIZE = 5000;

interface Lookalike {
  personId: number;
  firstName: string;
  lastName: string;
  reason: LookalikeReason;
}

/** What the first reading learnt about the file: who each record names, and what must move first. */
interface Plan {
  total: number;
  /** The person each record names, by record index; absent for records that add someone. */
  targets: Map<number, number>;
  /** The members a record that adds someone may duplicate, by record index. */
  lookalikes: Map<number, Lookalike[]>;
  /** People whose record may not change them (admins, erased): checked to change nothing, then skipped. */
  frozen: Set<number>;
  /** People whose chat_id (member_number) moves: cleared first, so that two people may swap them. */
  /** Their values before, which the changes are told from (the release empties them first). */
  releaseChatIds: Map<number, string>;
  releaseMemberNumbers: Map<number, string>;
}

/**
 * `import FILE` as a sync (SPEC §6): a record naming a person by `id` or `member_number` is the
 * whole truth about them; a record naming nobody adds a person; with `removeMissing` the members
 * no record names are erased. Every record is checked, against the file and the directory, before
 * anything is written; then everything is written in the same transaction, all or nothing.
 */
export class ImportPeople {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly spools: Spools,
    /** From how many records a first import writes while it checks (WRITE_AHEAD_AFTER; tests lower it). */
    private readonly writeAheadAfter = WRITE_AHEAD_AFTER,
  ) {}

  async execute(input: ImportPeopleInput): Promise<ImportPeopleOutput> {
    const spool = await this.spools.open<Checked>();
    try {
      return await this.unitOfWork.run(
        async (tx) => {
          const ahead =
            input.dryRun !== true && (await tx.people.count()) === 0
              ? new WriteAhead(tx, input, this.writeAheadAfter)
              : null;
          const plan = await check(tx, input, spool, ahead);
          return apply(tx, input, plan, spool, this.clock.now(), ahead?.engaged === true);
        },
        // Over HTTP, the erasures of remove_missing are purged as DELETE /people/:id's are.
        { purge: input.principal === undefined ? 'before-return' : 'in-background' },
      );
    } finally {
      await spool.close();
    }
  }
}

/**
 * A first import (into a directory without a single person, not a dry run) of at least this many
 * records writes its people while it is still checking the file: nothing in the directory can meet
 * what the file says (no person to name, to duplicate, to hold a chat_id), so every record adds
 * someone, and the database works while node reads. Should a problem turn up, the writing stops
 * and the whole transaction is rolled back, as after any failed check: all or nothing still. A
 * smaller import is checked, then written, as any other (10 batches: the set-aside of the
 * indexes, beginBulkInsert, wants about as many).
 */
const WRITE_AHEAD_AFTER = 10 * 1000;

/** The writing of a first import while it is checked (see WRITE_AHEAD_AFTER). */
class WriteAhead {
  /** Whether people are being written during the check; apply then only tells what was done. */
  engaged = false;
  private read = 0;
  private held: Checked[][] = [];

  constructor(
    private readonly tx: Transaction,
    private readonly input: ImportPeopleInput,
    private readonly after: number,
  ) {}

  /**
   * A batch of records, every one adding someone, checked without a problem so far (`clean`):
   * written once the import has read enough records; held until then. Once a problem is found
   * nothing more is written (the check then fails, and the transaction with it).
   */
  async take(batch: Checked[], clean: boolean): Promise<void> {
    this.read += batch.length;
    if (!clean) {
      this.held = [];
      return;
    }
    this.held.push(batch);
    if (!this.engaged) {
      if (this.read < this.after) return;
      this.engaged = true;
      if (setsIndexesAside(this.input)) await this.tx.people.beginBulkInsert(this.read);
    }
    for (const held of this.held.splice(0)) await writeAdded(this.tx, held, this.input);
  }
}

/**
 * Whether a large first import may have the store set its indexes aside (beginBulkInsert): only
 * from the command line. The store then holds the tables whole until the import ends, and every
 * reader waits; over HTTP other keys must go on being answered (SPEC §4, issue 46), and a body of
 * 10 MiB is a few tens of thousands of people, which row by row costs seconds, not minutes.
 */
function setsIndexesAside(input: ImportPeopleInput): boolean {
  return input.principal === undefined;
}

/** A record added ahead, as it is told once the check has passed: where it is and the names. */
function namesOnly({ index, where, person }: Checked): Checked {
  return { index, where, person: { id: null, firstName: person.firstName, lastName: person.lastName } };
}

/** Adds the people of `added`, with their audit entries and their changes for the feed. */
async function writeAdded(tx: Transaction, added: Checked[], input: ImportPeopleInput): Promise<void> {
  const created = await insertAdded(tx, added, input);
  await tx.audit.record(created.audit);
  await tx.changes.record(created.changes);
}

/** Inserts the people of `added` (telling onAdded their ids): their audit entries and changes. */
async function insertAdded(
  tx: Transaction,
  added: Checked[],
  input: ImportPeopleInput,
): Promise<{ audit: NewAuditEntry[]; changes: NewChange[] }> {
  const ids = await tx.people.insertMany(added.map(({ person }) => newPerson(person)));
  if (input.onAdded !== undefined) for (const [at, id] of ids.entries()) input.onAdded(added[at].index, id);
  return createdEntries(ids, input.principal ?? null);
}

/** The audit entries and the changes of people added (`by` null from the command line: no API key). */
function createdEntries(
  ids: number[],
  actor: Principal | null,
): { audit: NewAuditEntry[]; changes: NewChange[] } {
  return {
    audit: ids.map((id) => auditEntry(actor, 'person.create', id, null)),
    changes: ids.map((id) => ({
      type: 'person.created' as const,
      personId: id,
      fields: null,
      byKeyId: actor?.keyId ?? null,
    })),
  };
}

/**
 * Hands batches to `work` one at a time, each while the next is being read and checked: the
 * store works on one batch while node parses the next (the file's reading is most of node's work
 * in an import). `run` is the reading; whatever it throws, the batch in hand is finished first, so
 * that nothing reaches the store after the unit of work has ended.
 */
async function inTurn<B>(
  work: (batch: B) => Promise<void>,
  run: (hand: (batch: B) => Promise<void>) => Promise<void>,
) {
  let inHand: Promise<void> = Promise.resolve();
  const hand = async (batch: B) => {
    await inHand;
    inHand = work(batch);
    // Awaited by the next hand or at the end; meanwhile its failure is no unhandled rejection.
    inHand.catch(() => undefined);
  };
  try {
    await run(hand);
  } catch (error) {
    await inHand.catch(() => undefined);
    throw error;
  }
  await inHand;
}

/** A record that passed the reader's checks. */
type Checked = { index: number; where: string; person: IncomingPerson };

/** Holders of a chat_id or member_number the file gives, and the records named by who. */
interface FileKeys {
  /** chat_id (of members) and member_number → the record that has it. */
  chatIds: Map<string, Checked>;
  memberNumbers: Map<string, Checked>;
  /** Person id → where the record that names them is. */
  namedBy: Map<number, string>;
  /** People named by a record that leaves their chat_id (member_number) out: they keep it. */
  keepChatId: Set<number>;
  keepMemberNumber: Set<number>;
  plan: Plan;
}

async function check(
  tx: Transaction,
  input: ImportPeopleInput,
  spool: Spool<Checked>,
  ahead: WriteAhead | null,
): Promise<Plan> {
  const problems = new ImportProblems();
  const problem = (index: number, message: string, kind?: ProblemKind) => problems.add(index, message, kind);
  const plan: Plan = {
    total: 0,
    targets: new Map(),
    lookalikes: new Map(),
    frozen: new Set(),
    releaseChatIds: new Map(),
    releaseMemberNumbers: new Map(),
  };
  const file: FileKeys = {
    chatIds: new Map(),
    memberNumbers: new Map(),
    namedBy: new Map(),
    keepChatId: new Set(),
    keepMemberNumber: new Set(),
    plan,
  };
  const { namedBy, chatIds, memberNumbers } = file;
  /** Records naming an admin or an erased person: they may only say what is already there. */
  const frozenRecords: Checked[] = [];
  /** Records the reader refused that still say whom they name. */
  const refused: { index: number; where: string; names: RefusedRecordNames }[] = [];
  /** The members records will change, by id: the member_number that named them, null for an id. */
  const writable = new Map<number, string | null>();

  const resolve = async (batch: Checked[]) => {
    // Into an empty directory nobody is found; asking would find the people written ahead.
    const identities =
      ahead !== null
        ? []
        : await tx.people.findIdentities({
            ids: batch.flatMap(({ person }) => (person.id === null ? [] : [person.id])),
            memberNumbers: batch.flatMap(({ person }) =>
              person.id === null && person.memberNumber != null ? [person.memberNumber] : [],
            ),
            chatIds: [],
          });
    const byId = new Map(identities.map((p) => [p.id, p]));
    const byNumber = new Map(
      identities.flatMap((p) => (p.memberNumber === null ? [] : [[p.memberNumber, p]])),
    );
    // Numbers that name nobody, but a member with leading zeros before them (a spreadsheet's doing).
    const zeroHolders =
      ahead !== null
        ? new Map<string, PersonIdentity>()
        : await holdersWithZeros(
            tx,
            batch.flatMap(({ person: p }) =>
              p.id === null && p.memberNumber != null && !byNumber.has(p.memberNumber)
                ? [p.memberNumber]
                : [],
            ),
          );
    const adds: Checked[] = [];
    for (const record of batch) {
      const { index, where, person } = record;
      let target: PersonIdentity | undefined;
      if (person.id !== null) {
        target = byId.get(person.id);
        if (target === undefined) {
          problem(index, `${where}: id ${person.id} names no person in the directory`, 'unknown');
          continue;
        }
      } else if (person.memberNumber != null) {
        target = byNumber.get(person.memberNumber);
      }
      const zeroHolder = person.memberNumber == null ? undefined : zeroHolders.get(person.memberNumber);
      if (target === undefined && person.id === null && zeroHolder !== undefined) {
        problem(index, droppedZerosMessage(where, person.memberNumber as string, zeroHolder));
        continue;
      }
      if (target === undefined) {
        // A person added is made of what the record says: their names it must say.
        for (const field of ['first_name', 'last_name'] as const) {
          if (person[field === 'first_name' ? 'firstName' : 'lastName'] === undefined) {
            problem(index, `${where}: ${field} is required`);
          }
        }
        adds.push(record);
        continue;
      }
      const earlier = namedBy.get(target.id);
      if (earlier !== undefined) {
        problem(index, `${where}: names person ${target.id}, as ${earlier} does`);
        continue;
      }
      namedBy.set(target.id, where);
      plan.targets.set(index, target.id);
      if (input.membersOnly && (target.role === 'admin' || target.erased)) {
        if (person.id !== null) {
          problem(index, `${where}: id ${person.id} names no person in the directory`, 'unknown');
        } else {
          problem(
            index,
            `${where}: member_number ${JSON.stringify(person.memberNumber)} is already used by someone who is not a member`,
            'taken',
          );
        }
        continue;
      }
      if (target.role === 'admin' || target.erased) {
        plan.frozen.add(target.id);
        frozenRecords.push(record);
        continue;
      }
      if (
        person.memberNumber != null &&
        target.memberNumber !== null &&
        dropsLeadingZeros(person.memberNumber, target.memberNumber)
      ) {
        problem(index, droppedZerosMessage(where, person.memberNumber, target));
        continue;
      }
      writable.set(target.id, person.id === null ? (person.memberNumber ?? null) : null);
      if (person.role !== undefined && person.role !== target.role) {
        problem(index, `${where}: person ${target.id} is a ${target.role}; an import does not change roles`);
      }
      if (person.chatId === undefined) file.keepChatId.add(target.id);
      else if (target.chatId !== null && target.chatId !== person.chatId) {
        plan.releaseChatIds.set(target.id, target.chatId);
      }
      if (person.memberNumber === undefined) file.keepMemberNumber.add(target.id);
      else if (target.memberNumber !== null && target.memberNumber !== person.memberNumber) {
        plan.releaseMemberNumbers.set(target.id, target.memberNumber);
      }
    }
    if (ahead === null) await findLookalikes(tx, adds, plan);
    else await ahead.take(adds, problems.count === 0);
  };

  // `resolve` touches only what the reading below does not (namedBy, the plan's targets).
  await inTurn(resolve, async (hand) => {
    let batch: Checked[] = [];
    for await (const record of input.records) {
      plan.total += 1;
      if ('problems' in record) {
        for (const message of record.problems) problem(record.index, message);
        if (record.names !== undefined) refused.push({ ...record, names: record.names });
        continue;
      }
      const { index, where, person } = record;
      // Over HTTP the secretary keeps the members; admins are the operators', made on the command
      // line (and hidden from every people result).
      if (input.membersOnly && person.role === 'admin') {
        problem(index, `${where}: role admin is not taken over HTTP; admins are made with the command line`);
        continue;
      }
      if (person.memberNumber != null) {
        const first = memberNumbers.get(person.memberNumber);
        if (first !== undefined) {
          problem(
            index,
            `${where}: member_number ${JSON.stringify(person.memberNumber)} is also used by ${first.where}`,
          );
        } else memberNumbers.set(person.memberNumber, record);
      }
      // chat_id is unique among the people the API shows: an admin's neither blocks nor is blocked.
      if (person.chatId != null && isVisible({ role: person.role ?? 'member' })) {
        const first = chatIds.get(person.chatId);
        if (first !== undefined) {
          problem(index, `${where}: chat_id ${JSON.stringify(person.chatId)} is also used by ${first.where}`);
        } else chatIds.set(person.chatId, record);
      }
      // Kept as checked: the writing reads these, never the file again. Once the people are
      // written ahead, it only tells what was added: their names are all it needs.
      if (problems.count === 0) await spool.add(ahead?.engaged === true ? namesOnly(record) : record);
      batch.push(record);
      if (batch.length >= BATCH_SIZE) {
        await hand(batch);
        batch = [];
      }
    }
    await hand(batch);
  });

  // Into an empty directory no number lost its zeros (and the people written ahead are the file's).
  if (ahead === null) {
    for (const { index, message } of await droppedZerosInRefused(tx, refused)) problem(index, message);
  }
  if (input.dryRun !== true) await lockWritable(tx, input, writable, file, problem);
  if (problems.count === 0) await input.confirm?.(tx, plan.targets);
  await checkFrozen(tx, frozenRecords, plan, problem);
  // Into an empty directory nothing is taken (and the people written ahead hold what they hold).
  if (ahead === null) await checkTaken(tx, input, file, problem);

  if (problems.count > 0) throw problems.toError();
  return plan;
}

/**
 * Locks the members the import will write, in id order, until it ends (issue 46): they were read
 * without a lock, and are written by id. An erasure committed since the reading is seen now, and
 * fails the record naming that person as the reading would have (the import is all or nothing);
 * one that comes later waits for the import, and erases what it wrote.
 */
async function lockWritable(
  tx: Transaction,
  input: ImportPeopleInput,
  writable: Map<number, string | null>,
  file: FileKeys,
  problem: (index: number, message: string, kind?: ProblemKind) => void,
): Promise<void> {
  const ids = [...writable.keys()].sort((a, b) => a - b);
  const gone = new Map<number, PersonIdentity | undefined>();
  for (let start = 0; start < ids.length; start += LOOKUP_BATCH_SIZE) {
    const chunk = ids.slice(start, start + LOOKUP_BATCH_SIZE);
    const locked = new Map((await tx.people.lockIdentities(chunk)).map((p) => [p.id, p]));
    for (const id of chunk) {
      const person = locked.get(id);
      if (person === undefined || !isVisible(person)) gone.set(id, person);
    }
  }
  if (gone.size === 0) return;
  for (const [index, id] of file.plan.targets) {
    if (!gone.has(id)) continue;
    const where = file.namedBy.get(id) as string;
    const person = gone.get(id);
    const number = writable.get(id) ?? null;
    if (input.membersOnly || person === undefined) {
      problem(
        index,
        number === null
          ? `${where}: id ${id} names no person in the directory`
          : `${where}: member_number ${JSON.stringify(number)} names no person in the directory`,
        'unknown',
      );
    } else {
      problem(
        index,
        person.erased
          ? `${where}: person ${id} was erased; an import does not change erased people`
          : `${where}: person ${id} is an admin; an import does not change admins`,
      );
    }
  }
}

/**
 * The members that records adding someone may duplicate (SPEC §6): an email or both names in
 * common, compared case-folded as everywhere (SPEC §1). A same email is the stronger sign, and
 * the one reported when both hold.
 */
async function findLookalikes(tx: Transaction, adds: Checked[], plan: Plan): Promise<void> {
  const wanted = adds.map(({ index, person }) => ({
    index,
    emails: [
      ...new Set(
        [
          ...(person.contacts ?? []).filter((c) => c.kind === 'email').map((c) => c.value),
          ...(person.firstContacts?.email == null ? [] : [person.firstContacts.email]),
        ].map(foldCase),
      ),
    ],
    first: person.firstName === undefined ? null : foldCase(person.firstName),
    last: person.lastName === undefined ? null : foldCase(person.lastName),
  }));
  const emails = [...new Set(wanted.flatMap((w) => w.emails))];
  const names = wanted.flatMap((w) =>
    w.first === null || w.last === null ? [] : [{ first: w.first, last: w.last }],
  );
  if (emails.length === 0 && names.length === 0) return;
  const found = await tx.people.findLookalikes({ emails, names });
  if (found.length === 0) return;
  const byEmail = new Map<string, typeof found>();
  const byNames = new Map<string, typeof found>();
  const add = <K>(map: Map<K, typeof found>, key: K, member: (typeof found)[number]) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [member]);
    else list.push(member);
  };
  for (const member of found) {
    for (const email of member.foldedEmails) add(byEmail, email, member);
    add(byNames, JSON.stringify([member.foldedFirstName, member.foldedLastName]), member);
  }
  for (const w of wanted) {
    const seen = new Map<number, Lookalike>();
    const hits: [Lookalike['reason'], typeof found][] = [
      ['same email', w.emails.flatMap((email) => byEmail.get(email) ?? [])],
      ['same names', byNames.get(JSON.stringify([w.first, w.last])) ?? []],
    ];
    // A person found by email is not listed again by name.
    for (const [reason, members] of hits) {
      for (const m of members) {
        if (!seen.has(m.id))
          seen.set(m.id, { personId: m.id, firstName: m.firstName, lastName: m.lastName, reason });
      }
    }
    if (seen.size > 0)
      plan.lookalikes.set(
        w.index,
        [...seen.values()].sort((a, b) => a.personId - b.personId),
      );
  }
}

/** A record naming an admin or an erased person passes only when it changes nothing. */
async function checkFrozen(
  tx: Transaction,
  records: Checked[],
  plan: Plan,
  problem: (index: number, message: string, kind?: ProblemKind) => void,
): Promise<void> {
  for (let start = 0; start < records.length; start += BATCH_SIZE) {
    const slice = records.slice(start, start + BATCH_SIZE);
    const people = new Map(
      (await tx.people.findMany(slice.map(({ index }) => plan.targets.get(index) as number))).map((p) => [
        p.id,
        p,
      ]),
    );
    for (const { index, where, person } of slice) {
      const current = people.get(plan.targets.get(index) as number) as Person;
      const sameRole = person.role === undefined || person.role === current.role;
      if (diffPerson(current, person).replacement === null && sameRole) continue;
      problem(
        index,
        current.erased
          ? `${where}: person ${current.id} was erased; an import does not change erased people`
          : `${where}: person ${current.id} is an admin; an import does not change admins`,
      );
    }
  }
}

/**
 * A chat_id or member_number of the file that someone the file does not name already has (and
 * keeps: people about to be erased by --remove-missing give theirs up).
 */
async function checkTaken(
  tx: Transaction,
  input: ImportPeopleInput,
  file: FileKeys,
  problem: (index: number, message: string, kind?: ProblemKind) => void,
): Promise<void> {
  // A holder keeps what no record takes from them: not named at all (and not erased by
  // --remove-missing), or named by a record that leaves the field out.
  const unnamedKeeps = (holder: PersonIdentity) =>
    !file.namedBy.has(holder.id) && !(input.removeMissing && isVisible(holder) && !holder.hasAccount);
  const whose = (holder: PersonIdentity) => {
    const where = file.namedBy.get(holder.id);
    return where === undefined ? 'whom no record names' : `whom ${where} names without changing it`;
  };
  const chatIds = [...file.chatIds.keys()];
  const numbers = [...file.memberNumbers.keys()];
  for (let start = 0; start < Math.max(chatIds.length, numbers.length); start += LOOKUP_BATCH_SIZE) {
    const wantedChatIds = chatIds.slice(start, start + LOOKUP_BATCH_SIZE);
    const wantedNumbers = numbers.slice(start, start + LOOKUP_BATCH_SIZE);
    const holders = await tx.people.findIdentities({
      ids: [],
      memberNumbers: wantedNumbers,
      chatIds: wantedChatIds,
    });
    const chatSet = new Set(wantedChatIds);
    const numberSet = new Set(wantedNumbers);
    for (const holder of holders) {
      const keepsChatId = unnamedKeeps(holder) || file.keepChatId.has(holder.id);
      if (keepsChatId && holder.chatId !== null && holder.role === 'member' && chatSet.has(holder.chatId)) {
        const record = file.chatIds.get(holder.chatId) as Checked;
        if (file.plan.targets.get(record.index) !== holder.id) {
          problem(
            record.index,
            `${record.where}: chat_id ${JSON.stringify(holder.chatId)} is already used by person ${holder.id}, ${whose(holder)}`,
            'taken',
          );
        }
      }
      const keepsNumber = unnamedKeeps(holder) || file.keepMemberNumber.has(holder.id);
      if (keepsNumber && holder.memberNumber !== null && numberSet.has(holder.memberNumber)) {
        const record = file.memberNumbers.get(holder.memberNumber) as Checked;
        if (file.plan.targets.get(record.index) !== holder.id) {
          problem(
            record.index,
            input.membersOnly && !isVisible(holder)
              ? `${record.where}: member_number ${JSON.stringify(holder.memberNumber)} is already used by someone who is not a member`
              : `${record.where}: member_number ${JSON.stringify(holder.memberNumber)} is already used by person ${holder.id}, ${whose(holder)}`,
            'taken',
          );
        }
      }
    }
  }
}

async function apply(
  tx: Transaction,
  input: ImportPeopleInput,
  plan: Plan,
  spool: Spool<Checked>,
  now: Date,
  /** The people were written while the file was checked (WriteAhead): only tell what was done. */
  writtenAhead: boolean,
): Promise<ImportPeopleOutput> {
  // Neither a dry run (only planned) nor written ahead (only told): the people are written here.
  const writesHere = input.dryRun !== true && !writtenAhead;
  const output: ImportPeopleOutput = {
    added: 0,
    updated: 0,
    unchanged: 0,
    erased: 0,
    kept: 0,
    possibleDuplicates: 0,
  };
  const actor = input.principal ?? null;

  // Written ahead, the directory was empty: the people it holds now are the file's own.
  if (input.removeMissing && !writtenAhead) {
    // First, so that chat_ids and member numbers of the people erased are free for the records.
    const missing = await tx.people.membersOtherThan([...plan.targets.values()]);
    const erased: PersonIdentity[] = [];
    for (const person of missing) {
      if (person.hasAccount) output.kept += 1;
      else erased.push(person);
      await input.onChange?.({ kind: person.hasAccount ? 'keep' : 'erase', person });
    }
    output.erased = writesHere ? (await erasePeople(tx, erased, now, actor)).length : erased.length;
  }
  if (writesHere) {
    await tx.people.releaseIdentifiers(
      [...plan.releaseChatIds.keys()],
      [...plan.releaseMemberNumbers.keys()],
    );
  }

  let done = 0;
  input.onProgress?.(0, plan.total);
  if (writesHere && setsIndexesAside(input)) await tx.people.beginBulkInsert(plan.total - plan.targets.size);
  const flush = async (batch: Checked[]) => {
    const targets = batch.flatMap(({ index }) => {
      const id = plan.targets.get(index);
      return id === undefined || plan.frozen.has(id) ? [] : [id];
    });
    const current = new Map((await tx.people.findMany(targets)).map((p) => [p.id, p]));
    const added: Checked[] = [];
    const replacements: PersonReplacement[] = [];
    const audit: NewAuditEntry[] = [];
    const changes: NewChange[] = [];
    for (const record of batch) {
      const id = plan.targets.get(record.index);
      if (id === undefined) {
        added.push(record);
        await input.onChange?.({
          kind: 'add',
          index: record.index,
          where: record.where,
          firstName: record.person.firstName ?? '',
          lastName: record.person.lastName ?? '',
        });
        const lookalikes = plan.lookalikes.get(record.index) ?? [];
        if (lookalikes.length > 0) output.possibleDuplicates += 1;
        for (const lookalike of lookalikes) {
          await input.onChange?.({
            kind: 'duplicate',
            index: record.index,
            where: record.where,
            ...lookalike,
          });
        }
        continue;
      }
      const stored = current.get(id);
      // As they were before the release emptied their chat_id or member_number: the change is
      // told (and audited) from the value they had.
      const person =
        stored === undefined
          ? undefined
          : {
              ...stored,
              chatId: plan.releaseChatIds.get(id) ?? stored.chatId,
              memberNumber: plan.releaseMemberNumbers.get(id) ?? stored.memberNumber,
            };
      const diff = person === undefined ? null : diffPerson(person, record.person);
      if (diff?.replacement == null) {
        output.unchanged += 1;
        continue;
      }
      replacements.push(diff.replacement);
      for (const change of diff.changes) audit.push(auditEntry(actor, 'person.update', id, change));
      changes.push({
        type: 'person.updated',
        personId: id,
        fields: diff.changes.map((c) => c.field),
        byKeyId: actor?.keyId ?? null,
      });
      await input.onChange?.({
        kind: 'update',
        index: record.index,
        where: record.where,
        personId: id,
        firstName: record.person.firstName ?? (person as Person).firstName,
        lastName: record.person.lastName ?? (person as Person).lastName,
        changes: diff.changes,
      });
    }
    output.added += added.length;
    output.updated += replacements.length;
    if (writesHere) {
      const created = await insertAdded(tx, added, input);
      await tx.people.replaceMany(replacements);
      await tx.audit.record([...audit, ...created.audit]);
      // The command line is no API key: `by` is null in the feed.
      await tx.changes.record([...changes, ...created.changes]);
    }
    done += batch.length;
    input.onProgress?.(done, plan.total);
  };
  // Written ahead, the store builds its indexes again while the changes are told (which only
  // reads the spool). Both are over before the import ends; the first failure fails it.
  const outcomes = await Promise.allSettled([
    inTurn(flush, async (hand) => {
      let batch: Checked[] = [];
      for await (const record of spool.read()) {
        batch.push(record);
        if (batch.length >= BATCH_SIZE) {
          await hand(batch);
          batch = [];
        }
      }
      await hand(batch);
    }),
    writtenAhead ? tx.people.endBulkInsert() : undefined,
  ]);
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  if (writesHere) await tx.people.endBulkInsert();
  return output;
}

/** A person added: what the record says, a field it leaves out empty. */
function newPerson(person: IncomingPerson): NewPerson {
  const first = person.firstContacts ?? {};
  return {
    role: person.role ?? 'member',
    firstName: person.firstName ?? '',
    lastName: person.lastName ?? '',
    chatId: person.chatId ?? null,
    plannerId: person.plannerId ?? null,
    memberNumber: person.memberNumber ?? null,
    contacts:
      person.contacts ??
      (['email', 'phone', 'address'] as const).flatMap((kind) => {
        const value = first[kind];
        return value == null ? [] : [{ kind, value, label: null }];
      }),
    memberships: person.memberships ?? [],
  };
}

/**
 * An audit entry for a change the import made: by the key that imported over HTTP, or by the
 * command line (no account made it, the operator did).
 */
function auditEntry(
  actor: Principal | null,
  action: string,
  personId: number,
  change: FieldChange | null,
): NewAuditEntry {
  return {
    actorAccountId: actor?.accountId ?? null,
    actorKeyId: actor?.keyId ?? null,
    action,
    subjectType: 'person',
    subjectId: personId,
    field: change?.field ?? null,
    oldValue: change?.old ?? null,
    newValue: change?.new ?? null,
  };
}
