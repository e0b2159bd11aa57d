import { NO_GRACE } from '../../../../src/domain/grace';
import { AnnounceMembershipTransitions } from '../../../../src/application/changes/announce-membership-transitions';
import { decodeCursor, encodeCursor } from '../../../../src/application/changes/change-cursor';
import { ListChanges, type ListChangesOutput } from '../../../../src/application/changes/list-changes';
import { TakeChangesCursor } from '../../../../src/application/changes/take-changes-cursor';
import type { ChangeFeed } from '../../../../src/application/ports/change-feed';
import { UpdatePerson } from '../../../../src/application/people/update-person';
import { Gone, InvalidInput } from '../../../../src/domain/errors';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { addPerson, principalOf } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';

function setup() {
  const clock = new FakeClock('2025-03-15T12:00:00Z');
  const directory = new InMemoryDirectory(clock);
  return {
    clock,
    directory,
    list: new ListChanges(directory.feed, clock, NO_GRACE),
    update: new UpdatePerson(directory.people, directory.unitOfWork, clock),
    calendar: new AnnounceMembershipTransitions(directory.unitOfWork, clock),
  };
}

/** A page read to its end, as GET /changes sends it: every text, then where to go on from. */
async function listed(output: Promise<ListChangesOutput>) {
  const page = await output;
  const changes: string[] = [];
  for await (const batch of page.changes) changes.push(...batch);
  return { changes, ...page.end() };
}

const writer = principalOf(7, ['read', 'write'], 42);
const DIRECTORY = '3f5d2e1a-7c4b-4b0e-a9f2-8d6c1e0b4a7e';

describe('change cursors', () => {
  it('read back what they were written from', () => {
    for (const seq of [0, 1, 42, Number.MAX_SAFE_INTEGER]) {
      expect(decodeCursor(encodeCursor({ directoryId: DIRECTORY, seq }))).toEqual({
        directoryId: DIRECTORY,
        seq,
      });
    }
  });

  it('refuse anything else as invalid input', () => {
    const bad = [
      '',
      'nonsense',
      Buffer.from(`v1.${DIRECTORY}.9007199254740993`).toString('base64url'),
      Buffer.from(`v1.${DIRECTORY}.1 `).toString('base64url'),
      Buffer.from(`v1.not-a-uuid.1`).toString('base64url'),
      Buffer.from(`v1.${DIRECTORY}.1`).toString('base64'),
    ];
    for (const text of bad) expect(() => decodeCursor(text)).toThrow(InvalidInput);
  });
});

describe('ListChanges', () => {
  it('lists a PATCH with its fields and key, and hands back the same cursor when nothing is new', async () => {
    const { directory, list, update } = setup();
    const ann = await addPerson(directory, { firstName: 'Ann' });
    const start = (await listed(list.execute({}))).cursor;

    await update.execute({ principal: writer, id: ann.id, changes: { firstName: 'Anne', chatId: 'a1' } });
    const page = await listed(list.execute({ after: start }));

    expect(page.changes.map((text) => JSON.parse(text))).toEqual([
      expect.objectContaining({
        type: 'person.updated',
        person_id: ann.id,
        fields: ['first_name', 'chat_id'],
        by: 42,
        person: expect.objectContaining({ id: ann.id, first_name: 'Anne', chat_id: 'a1' }),
      }),
    ]);
    expect(await listed(list.execute({ after: page.cursor }))).toMatchObject({
      changes: [],
      cursor: page.cursor,
    });
  });

  it('answers Gone for a cursor older than what is kept, and InvalidInput for a bad limit', async () => {
    const { clock, directory, list, update } = setup();
    const ann = await addPerson(directory);
    const start = (await listed(list.execute({}))).cursor;
    await update.execute({ principal: writer, id: ann.id, changes: { firstName: 'Old' } });
    clock.advance(2 * 24 * 3600 * 1000);
    await directory.feed.prune(new Date(clock.now().getTime() - 24 * 3600 * 1000));

    await expect(list.execute({ after: start })).rejects.toBeInstanceOf(Gone);
    await expect(list.execute({ limit: 0 })).rejects.toBeInstanceOf(InvalidInput);
    await expect(list.execute({ limit: 1001 })).rejects.toBeInstanceOf(InvalidInput);
  });
});

describe('AnnounceMembershipTransitions', () => {
  it('tells a start and an end once each as the calendar turns, and nothing written already past', async () => {
    const { clock, directory, list, calendar } = setup();
    const club = 'Northern Astronomers';
    const turning = await addPerson(directory, {
      memberships: [{ club, kind: null, startDate: '2025-03-16', endDate: '2025-03-17' }],
    });
    await addPerson(directory, {
      memberships: [{ club, kind: null, startDate: '2020-01-01', endDate: '2021-01-01' }],
    });
    const start = (await listed(list.execute({}))).cursor;

    expect(await calendar.execute()).toEqual({ started: 0, ended: 0 });
    clock.set('2025-03-16T00:00:00Z');
    expect(await calendar.execute()).toEqual({ started: 1, ended: 0 });
    clock.set('2025-03-20T00:00:00Z');
    expect(await calendar.execute()).toEqual({ started: 0, ended: 1 });
    expect(await calendar.execute()).toEqual({ started: 0, ended: 0 });

    const page = await listed(list.execute({ after: start }));
    expect(page.changes.map((text) => JSON.parse(text)).map((c) => [c.type, c.person_id, c.by])).toEqual([
      ['membership.started', turning.id, null],
      ['membership.ended', turning.id, null],
    ]);
  });
});

describe('TakeChangesCursor', () => {
  it('shares one reading of the position among searches that arrive while it is under way', async () => {
    const { directory, update } = setup();
    let readings = 0;
    const feed: ChangeFeed = {
      position: () => {
        readings += 1;
        return directory.feed.position();
      },
      page: (after, limit) => directory.feed.page(after, limit),
      renderedPage: (after, limit, today, grace) => directory.feed.renderedPage(after, limit, today, grace),
      prune: (before) => directory.feed.prune(before),
    };
    const take = new TakeChangesCursor(feed);

    const together = await Promise.all([take.execute(), take.execute(), take.execute()]);
    expect(readings).toBe(1);
    expect(new Set(together).size).toBe(1);

    const ann = await addPerson(directory);
    await update.execute({ principal: writer, id: ann.id, changes: { firstName: 'Later' } });
    // A search after that reading is over reads the position again, and sees the change.
    const later = await take.execute();
    expect(readings).toBe(2);
    expect(decodeCursor(later).seq).toBe(decodeCursor(together[0]).seq + 1);
  });
});

describe('a page the store cut short', () => {
  it('says more may follow, from the last change it read, so that the next page tells of the prune', async () => {
    const clock = new FakeClock('2025-03-15T12:00:00Z');
    const cut: ChangeFeed = {
      position: async () => ({ directoryId: DIRECTORY, prunedThrough: 0, latest: 9 }),
      renderedPage: async () => ({
        position: { directoryId: DIRECTORY, prunedThrough: 0, latest: 9 },
        changes: (async function* () {
          yield [
            { seq: 1, json: '{"seq":1}' },
            { seq: 2, json: '{"seq":2}' },
          ];
        })(),
        cutShort: () => true,
      }),
      page: async () => ({ position: { directoryId: DIRECTORY, prunedThrough: 0, latest: 9 }, changes: [] }),
      prune: async () => 0,
    };
    const page = await listed(new ListChanges(cut, clock, NO_GRACE).execute({ limit: 5 }));
    expect(page.changes).toEqual(['{"seq":1}', '{"seq":2}']);
    expect(page.hasMore).toBe(true);
    expect(decodeCursor(page.cursor)).toEqual({ directoryId: DIRECTORY, seq: 2 });
  });
});
