import { Conflict, Unavailable } from '../../../../src/domain/errors';
import { GroupCommit } from '../../../../src/infrastructure/persistence/group-commit';

/** PostgreSQL's unique violation, as pg reports it. */
const chatIdTaken = () =>
  Object.assign(new Error('duplicate key value violates unique constraint "people_member_chat_id_key"'), {
    code: '23505',
    constraint: 'people_member_chat_id_key',
  });

/**
 * The statements a GroupCommit sends, each recorded with its items, answering ten times each item.
 * While held, a statement waits to be released: the items written meanwhile must wait too. A
 * statement that holds an item of `refused` fails as a whole, as a multi-row statement does.
 */
function fakeDatabase(refused: (item: number) => Error | null = () => null) {
  const statements: number[][] = [];
  let gate = Promise.resolve();
  let open = () => {};
  return {
    statements,
    hold() {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release: () => open(),
    writeMany: async (items: number[]) => {
      statements.push([...items]);
      await gate;
      for (const item of items) {
        const error = refused(item);
        if (error !== null) throw error;
      }
      return items.map((item) => item * 10);
    },
  };
}

const byValue = (a: number, b: number) => a - b;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`resolved with ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

describe('GroupCommit', () => {
  it('writes an item that finds nothing under way at once, in a statement of its own', async () => {
    const database = fakeDatabase();
    const commit = new GroupCommit(database.writeMany, { maxBatch: 10, order: byValue });

    expect(await commit.write(4)).toBe(40);
    expect(await commit.write(2)).toBe(20);
    expect(database.statements).toEqual([[4], [2]]);
  });

  it('writes the items that arrive while a statement runs together in the next, in order, each given its own result', async () => {
    const database = fakeDatabase();
    const commit = new GroupCommit(database.writeMany, { maxBatch: 10, order: byValue });
    database.hold();

    const first = commit.write(5);
    const waiting = [commit.write(3), commit.write(9), commit.write(1)];
    expect(database.statements).toEqual([[5]]);
    database.release();

    expect(await first).toBe(50);
    expect(await Promise.all(waiting)).toEqual([30, 90, 10]);
    expect(database.statements).toEqual([[5], [1, 3, 9]]);
  });

  it('puts at most maxBatch items in a statement, the earliest to arrive first', async () => {
    const database = fakeDatabase();
    const commit = new GroupCommit(database.writeMany, { maxBatch: 2, order: byValue });
    database.hold();

    const written = [1, 6, 2, 5, 3].map((item) => commit.write(item));
    database.release();

    expect(await Promise.all(written)).toEqual([10, 60, 20, 50, 30]);
    expect(database.statements).toEqual([[1], [2, 6], [3, 5]]);
  });

  it('writes each item of a failed statement again on its own, so that only the culprit fails', async () => {
    const database = fakeDatabase((item) => (item === 13 ? chatIdTaken() : null));
    const commit = new GroupCommit(database.writeMany, { maxBatch: 10, order: byValue });
    database.hold();

    const first = commit.write(1);
    const [two, culprit, three] = [commit.write(2), commit.write(13), commit.write(3)];
    database.release();

    expect(await first).toBe(10);
    expect(await two).toBe(20);
    expect(await three).toBe(30);
    const error = await rejection(culprit);
    expect(error).toBeInstanceOf(Conflict);
    expect((error as Conflict).message).toBe('chat_id is already used by another person');
    expect(database.statements).toEqual([[1], [2, 3, 13], [2], [3], [13]]);
  });

  it("fails a lone item's statement once, with the database's error translated, and writes on", async () => {
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const notDatabase = new Error('the row could not be built');
    const database = fakeDatabase((item) => (item === 7 ? outage : item === 8 ? notDatabase : null));
    const commit = new GroupCommit(database.writeMany, { maxBatch: 10, order: byValue });

    const unavailable = await rejection(commit.write(7));
    expect(unavailable).toBeInstanceOf(Unavailable);
    expect((unavailable as Unavailable).message).toBe('the database is unavailable');
    // An error that did not come from the database passes as it is.
    expect(await rejection(commit.write(8))).toBe(notDatabase);
    expect(await commit.write(4)).toBe(40);
    expect(database.statements).toEqual([[7], [8], [4]]);
  });
});
