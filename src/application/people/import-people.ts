import { inject, injectable } from 'inversify';
import type { NewAuditEntry } from '../../domain/audit-entry';
import { InvalidInput } from '../../domain/errors';
import { isVisible, type Person } from '../../domain/person';
import type { NewChange } from '../ports/change-log';
import type { Clock } from '../ports/clock';
import type { NewPerson, PersonIdentity, PersonReplacement } from '../ports/person-repository';
import { TYPES } from '../ports/tokens';
import type { Transaction, UnitOfWork } from '../ports/unit-of-work';
import { erasePeople } from './erase-people';
import { diffPerson, type FieldChange } from './person-diff';

/** A person as a record of the file brings them, checked; `id` or `memberNumber` may name someone. */
export interface IncomingPerson extends NewPerson {
  id: number | null;
  memberNumber: string | null;
}

/** One record of the file: checked, or the problems found in it. `index` counts from 0. */
export type IncomingRecord =
  | { index: number; person: IncomingPerson }
  | { index: number; problems: string[] };

/** What the import does, or in a dry run would do, to one person. */
export type PlannedChange =
  | { kind: 'add'; index: number; firstName: string; lastName: string }
  | { kind: 'update'; index: number; personId: number; changes: FieldChange[] }
  | { kind: 'erase'; person: PersonIdentity }
  /** A member no record names who holds an account: listed, never erased by an import. */
  | { kind: 'keep'; person: PersonIdentity };

export interface ImportPeopleInput {
  /**
   * The records of the file, read from its start at each call: the import reads them twice, once
   * to check them all and once to write, so that it never holds the whole file.
   */
  records: () => AsyncIterable<IncomingRecord>;
  /** Check and report, write nothing. */
  dryRun?: boolean;
  /** Erase the members no record names (not those holding an account: they are listed). */
  removeMissing?: boolean;
  /** Each planned change as it is found; awaited, so that a slow reader holds back the import. */
  onChange?: (change: PlannedChange) => Promise<void> | void;
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
}

// Big enough that a large file needs few round trips, small enough that a batch of people with
// their children stays a few megabytes.
const BATCH_SIZE = 1000;
const LOOKUP_BATCH_SIZE = 5000;

interface Problem {
  index: number;
  message: string;
}

/** What the first reading learnt about the file: who each record names, and what must move first. */
interface Plan {
  total: number;
  /** The person each record names, by record index; absent for records that add someone. */
  targets: Map<number, number>;
  /** People whose record may not change them (admins, erased): checked to change nothing, then skipped. */
  frozen: Set<number>;
  /** People whose chat_id (member_number) moves: cleared first, so that two people may swap them. */
  releaseChatIds: number[];
  releaseMemberNumbers: number[];
}

/**
 * `import FILE` as a sync (SPEC §6): a record naming a person by `id` or `member_number` is the
 * whole truth about them; a record naming nobody adds a person; with `removeMissing` the members
 * no record names are erased. Every record is checked, against the file and the directory, before
 * anything is written; then everything is written in the same transaction, all or nothing.
 */
@injectable()
export class ImportPeople {
  constructor(
    @inject(TYPES.UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  execute(input: ImportPeopleInput): Promise<ImportPeopleOutput> {
    return this.unitOfWork.run(async (tx) => {
      const plan = await check(tx, input);
      return apply(tx, input, plan, this.clock.now());
    });
  }
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

async function check(tx: Transaction, input: ImportPeopleInput): Promise<Plan> {
  const problems: Problem[] = [];
  const problem = (index: number, message: string) => problems.push({ index, message });
  const plan: Plan = {
    total: 0,
    targets: new Map(),
    frozen: new Set(),
    releaseChatIds: [],
    releaseMemberNumbers: [],
  };
  /** Person id → the record that names them. */
  const namedBy = new Map<number, number>();
  /** chat_id (of members) and member_number → the record that has it. */
  const chatIds = new Map<string, number>();
  const memberNumbers = new Map<string, number>();
  /** Records naming an admin or an erased person: they may only say what is already there. */
  const frozenRecords: { index: number; person: IncomingPerson }[] = [];

  const resolve = async (batch: { index: number; person: IncomingPerson }[]) => {
    const identities = await tx.people.findIdentities({
      ids: batch.flatMap(({ person }) => (person.id === null ? [] : [person.id])),
      memberNumbers: batch.flatMap(({ person }) =>
        person.id === null && person.memberNumber !== null ? [person.memberNumber] : [],
      ),
      chatIds: [],
    });
    const byId = new Map(identities.map((p) => [p.id, p]));
    const byNumber = new Map(
      identities.flatMap((p) => (p.memberNumber === null ? [] : [[p.memberNumber, p]])),
    );
    for (const { index, person } of batch) {
      let target: PersonIdentity | undefined;
      if (person.id !== null) {
        target = byId.get(person.id);
        if (target === undefined) {
          problem(index, `id ${person.id} names no person in the directory`);
          continue;
        }
      } else if (person.memberNumber !== null) {
        target = byNumber.get(person.memberNumber);
      }
      if (target === undefined) continue;
      const earlier = namedBy.get(target.id);
      if (earlier !== undefined) {
        problem(index, `names person ${target.id}, as record ${earlier} does`);
        continue;
      }
      namedBy.set(target.id, index);
      plan.targets.set(index, target.id);
      if (target.role === 'admin' || target.erased) {
        plan.frozen.add(target.id);
        frozenRecords.push({ index, person });
        continue;
      }
      if (person.role !== target.role) {
        problem(index, `person ${target.id} is a ${target.role}; an import does not change roles`);
      }
      if (target.chatId !== null && target.chatId !== person.chatId) plan.releaseChatIds.push(target.id);
      if (target.memberNumber !== null && target.memberNumber !== person.memberNumber) {
        plan.releaseMemberNumbers.push(target.id);
      }
    }
  };

  // `resolve` touches only what the reading below does not (namedBy, the plan's targets).
  await inTurn(resolve, async (hand) => {
    let batch: { index: number; person: IncomingPerson }[] = [];
    for await (const record of input.records()) {
      plan.total += 1;
      if ('problems' in record) {
        for (const message of record.problems) problem(record.index, message);
        continue;
      }
      const { index, person } = record;
      if (person.memberNumber !== null) {
        const first = memberNumbers.get(person.memberNumber);
        if (first !== undefined) {
          problem(
            index,
            `member_number ${JSON.stringify(person.memberNumber)} is also used by record ${first}`,
          );
        } else memberNumbers.set(person.memberNumber, index);
      }
      // chat_id is unique among the people the API shows: an admin's neither blocks nor is blocked.
      if (person.chatId !== null && isVisible(person)) {
        const first = chatIds.get(person.chatId);
        if (first !== undefined) {
          problem(index, `chat_id ${JSON.stringify(person.chatId)} is also used by record ${first}`);
        } else chatIds.set(person.chatId, index);
      }
      batch.push(record);
      if (batch.length >= BATCH_SIZE) {
        await hand(batch);
        batch = [];
      }
    }
    await hand(batch);
  });

  await checkFrozen(tx, frozenRecords, plan, problem);
  await checkTaken(tx, input, { chatIds, memberNumbers, namedBy, plan }, problem);

  if (problems.length > 0) {
    // Stable: a record's problems stay in the order they were found.
    problems.sort((a, b) => a.index - b.index);
    throw new InvalidInput(problems.map((p) => `record ${p.index}: ${p.message}`));
  }
  return plan;
}

/** A record naming an admin or an erased person passes only when it changes nothing. */
async function checkFrozen(
  tx: Transaction,
  records: { index: number; person: IncomingPerson }[],
  plan: Plan,
  problem: (index: number, message: string) => void,
): Promise<void> {
  for (let start = 0; start < records.length; start += BATCH_SIZE) {
    const slice = records.slice(start, start + BATCH_SIZE);
    const people = new Map(
      (await tx.people.findMany(slice.map(({ index }) => plan.targets.get(index) as number))).map((p) => [
        p.id,
        p,
      ]),
    );
    for (const { index, person } of slice) {
      const current = people.get(plan.targets.get(index) as number) as Person;
      if (diffPerson(current, person).replacement === null && person.role === current.role) continue;
      problem(
        index,
        current.erased
          ? `person ${current.id} was erased; an import does not change erased people`
          : `person ${current.id} is an admin; an import does not change admins`,
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
  file: {
    chatIds: Map<string, number>;
    memberNumbers: Map<string, number>;
    namedBy: Map<number, number>;
    plan: Plan;
  },
  problem: (index: number, message: string) => void,
): Promise<void> {
  const keeps = (holder: PersonIdentity) =>
    !file.namedBy.has(holder.id) && !(input.removeMissing && isVisible(holder) && !holder.hasAccount);
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
      if (!keeps(holder)) continue;
      if (holder.chatId !== null && holder.role === 'member' && chatSet.has(holder.chatId)) {
        const index = file.chatIds.get(holder.chatId) as number;
        if (file.plan.targets.get(index) !== holder.id) {
          problem(
            index,
            `chat_id ${JSON.stringify(holder.chatId)} is already used by person ${holder.id}, whom no record names`,
          );
        }
      }
      if (holder.memberNumber !== null && numberSet.has(holder.memberNumber)) {
        const index = file.memberNumbers.get(holder.memberNumber) as number;
        if (file.plan.targets.get(index) !== holder.id) {
          problem(
            index,
            `member_number ${JSON.stringify(holder.memberNumber)} is already used by person ${holder.id}, whom no record names`,
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
  now: Date,
): Promise<ImportPeopleOutput> {
  const dryRun = input.dryRun === true;
  const output: ImportPeopleOutput = { added: 0, updated: 0, unchanged: 0, erased: 0, kept: 0 };

  if (input.removeMissing) {
    // First, so that chat_ids and member numbers of the people erased are free for the records.
    const missing = await tx.people.membersOtherThan([...plan.targets.values()]);
    const erased: PersonIdentity[] = [];
    for (const person of missing) {
      if (person.hasAccount) output.kept += 1;
      else erased.push(person);
      await input.onChange?.({ kind: person.hasAccount ? 'keep' : 'erase', person });
    }
    output.erased = erased.length;
    if (!dryRun) await erasePeople(tx, erased, now);
  }
  if (!dryRun) await tx.people.releaseIdentifiers(plan.releaseChatIds, plan.releaseMemberNumbers);

  let done = 0;
  input.onProgress?.(0, plan.total);
  const flush = async (batch: { index: number; person: IncomingPerson }[]) => {
    const targets = batch.flatMap(({ index }) => {
      const id = plan.targets.get(index);
      return id === undefined || plan.frozen.has(id) ? [] : [id];
    });
    const current = new Map((await tx.people.findMany(targets)).map((p) => [p.id, p]));
    const added: { index: number; person: IncomingPerson }[] = [];
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
          firstName: record.person.firstName,
          lastName: record.person.lastName,
        });
        continue;
      }
      const person = current.get(id);
      const diff = person === undefined ? null : diffPerson(person, record.person);
      if (diff?.replacement == null) {
        output.unchanged += 1;
        continue;
      }
      replacements.push(diff.replacement);
      for (const change of diff.changes) audit.push(byCommandLine('person.update', id, change));
      changes.push({
        type: 'person.updated',
        personId: id,
        fields: diff.changes.map((c) => c.field),
        byKeyId: null,
      });
      await input.onChange?.({ kind: 'update', index: record.index, personId: id, changes: diff.changes });
    }
    output.added += added.length;
    output.updated += replacements.length;
    if (!dryRun) {
      const ids = await tx.people.insertMany(added.map(({ person }) => person));
      for (const id of ids) {
        audit.push(byCommandLine('person.create', id, null));
        changes.push({ type: 'person.created', personId: id, fields: null, byKeyId: null });
      }
      await tx.people.replaceMany(replacements);
      await tx.audit.record(audit);
      // The command line is no API key: `by` is null in the feed.
      await tx.changes.record(changes);
    }
    done += batch.length;
    input.onProgress?.(done, plan.total);
  };
  await inTurn(flush, async (hand) => {
    let batch: { index: number; person: IncomingPerson }[] = [];
    for await (const record of input.records()) {
      // The first reading found no problem; a file changed since then fails on what it now says.
      if ('problems' in record) throw new InvalidInput(`record ${record.index}: ${record.problems[0]}`);
      batch.push(record);
      if (batch.length >= BATCH_SIZE) {
        await hand(batch);
        batch = [];
      }
    }
    await hand(batch);
  });
  return output;
}

/** An audit entry for a change made by the command line: no account made it, the operator did. */
function byCommandLine(action: string, personId: number, change: FieldChange | null): NewAuditEntry {
  return {
    actorAccountId: null,
    actorKeyId: null,
    action,
    subjectType: 'person',
    subjectId: personId,
    field: change?.field ?? null,
    oldValue: change?.old ?? null,
    newValue: change?.new ?? null,
  };
}
