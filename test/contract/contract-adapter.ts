import type { ChangeFeed } from '../../src/application/ports/change-feed';
import type { NewPerson } from '../../src/application/ports/person-repository';
import type { Transaction, UnitOfWork } from '../../src/application/ports/unit-of-work';

/**
 * A persistence adapter as the contract suite sees it: its repositories outside any unit of work
 * (each call stands on its own) and its unit of work, over one store.
 */
export interface ContractAdapter {
  repositories: Transaction;
  unitOfWork: UnitOfWork;
  /** The read side of the change log over the same store. */
  feed: ChangeFeed;
  close(): Promise<void>;
}

/** Opens an adapter over an empty store. Called once per suite: the tests share the store. */
export type OpenAdapter = () => Promise<ContractAdapter>;

/** The adapter of the enclosing `describe`, opened before its first test and closed after its last. */
export function useAdapter(open: OpenAdapter): () => ContractAdapter {
  let adapter: ContractAdapter | undefined;
  beforeAll(async () => {
    adapter = await open();
  });
  afterAll(async () => {
    await adapter?.close();
  });
  return () => {
    if (adapter === undefined) throw new Error('the adapter under test did not open');
    return adapter;
  };
}

/** The directory's calendar day in every test: it decides which memberships are current. */
export const TODAY = '2024-06-15';

let counter = 0;

/**
 * A string no other test uses. Tests share one store, so each finds its own people by a tag in
 * their last names (and its accounts by a tag in their usernames).
 */
export function uniqueTag(): string {
  counter += 1;
  return `Zq${process.pid.toString(36)}${Date.now().toString(36)}${counter.toString(36)}`;
}

export function newPerson(overrides: Partial<NewPerson> = {}): NewPerson {
  return {
    role: 'member',
    firstName: 'Ada',
    lastName: 'Lovelace',
    chatId: null,
    plannerId: null,
    contacts: [],
    memberships: [],
    ...overrides,
  };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Ids of the people whose last name holds `tag`, admins included, by id. */
export async function idsTagged({ repositories }: ContractAdapter, tag: string): Promise<number[]> {
  const everyone = await collect(repositories.people.streamAll());
  return everyone.filter((person) => person.lastName.includes(tag)).map((person) => person.id);
}

/** Ids of the members whose last name holds `tag`, by id (a search: cheaper than idsTagged). */
export async function memberIdsTagged({ repositories }: ContractAdapter, tag: string): Promise<number[]> {
  const found = await repositories.people.search({ filter: { lastName: tag }, today: TODAY }, 10_000);
  return found.map((person) => person.id);
}
