import { NO_GRACE } from '../../../../src/domain/grace';
import { AnnounceRenewalNotices } from '../../../../src/application/changes/announce-renewal-notices';
import { ListChanges } from '../../../../src/application/changes/list-changes';
import type { NewMembership } from '../../../../src/application/ports/person-repository';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { addPerson } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';

const period = (startDate: string, endDate: string | null): NewMembership => ({
  club: 'Northern Astronomers',
  kind: null,
  startDate,
  endDate,
});

/** The in-memory adapter keeps the same rules as the database's (test/integration/changes/renewal-notices.test.ts). */
describe('AnnounceRenewalNotices on the in-memory adapters', () => {
  async function setup() {
    const clock = new FakeClock('2025-05-30T12:00:00Z');
    const directory = new InMemoryDirectory(clock);
    const list = new ListChanges(directory.feed, clock, NO_GRACE);
    /** A page read to its end, as GET /changes sends it. */
    const read = async (after?: string) => {
      const page = await list.execute(after === undefined ? {} : { after });
      const texts: string[] = [];
      for await (const batch of page.changes) texts.push(...batch);
      return { texts, cursor: page.end().cursor };
    };
    const start = async () => (await read()).cursor;
    const told = async (after: string) =>
      (await read(after)).texts.map((text) => JSON.parse(text)).map((c) => [c.type, c.person_id]);
    return {
      clock,
      directory,
      start,
      told,
      notices: new AnnounceRenewalNotices(directory.unitOfWork, clock),
    };
  }

  it('tells a current membership 30 days before its end once, and not when a renewal is recorded or the person erased', async () => {
    const { clock, directory, start, told, notices } = await setup();
    const ending = await addPerson(directory, { memberships: [period('2025-01-01', '2025-06-30')] });
    await addPerson(directory, {
      memberships: [period('2025-01-01', '2025-06-30'), period('2025-07-01', null)],
    });
    const erased = await addPerson(directory, { memberships: [period('2025-01-01', '2025-06-30')] });
    await directory.people.erase([erased.id]);
    const cursor = await start();

    expect(await notices.execute({ noticeDays: 30 })).toEqual({ ending: 0 });
    clock.set('2025-05-31T12:00:00Z');
    expect(await notices.execute({ noticeDays: 0 })).toEqual({ ending: 0 });
    expect(await notices.execute({ noticeDays: 30 })).toEqual({ ending: 1 });
    expect(await notices.execute({ noticeDays: 30 })).toEqual({ ending: 0 });
    expect(await told(cursor)).toEqual([['membership.ending', ending.id]]);
  });
});
