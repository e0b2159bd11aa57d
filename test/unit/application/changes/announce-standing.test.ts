import { AnnounceStanding } from '../../../../src/application/changes/announce-standing';
import { ListChanges } from '../../../../src/application/changes/list-changes';
import type { NewMembership } from '../../../../src/application/ports/person-repository';
import { type Grace, graceOf } from '../../../../src/domain/grace';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { addPerson } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';

const period = (startDate: string, endDate: string | null, kind: string | null = null): NewMembership => ({
  club: 'Northern Astronomers',
  kind,
  startDate,
  endDate,
});

/** The in-memory adapter keeps the same rules as the database's (test/integration/changes/standing-changes.test.ts). */
describe('AnnounceStanding on the in-memory adapters', () => {
  function setup(grace: Grace = graceOf(10)) {
    const clock = new FakeClock('2030-01-01T12:00:00Z');
    const directory = new InMemoryDirectory(clock);
    const list = new ListChanges(directory.feed, clock, grace);
    const told = async () => {
      const page = await list.execute({});
      const texts: string[] = [];
      for await (const batch of page.changes) texts.push(...batch);
      return texts
        .map((text) => JSON.parse(text))
        .filter((c) => c.type === 'membership.lapsed' || c.type === 'person.standing_changed')
        .map((c) => [c.type, c.person_id, c.fields]);
    };
    const on = (day: string) => clock.set(`${day}T12:00:00Z`);
    const run = (withGrace = grace) => new AnnounceStanding(directory.unitOfWork, clock, withGrace);
    return { directory, told, on, run };
  }

  it('tells each transition once and the lapse on the day after grace_until; a new person silently', async () => {
    const { directory, told, on, run } = setup();
    const job = run();
    const { id } = await addPerson(directory, { memberships: [period('2030-01-05', '2030-06-30')] });
    await job.execute();
    for (const day of ['2030-01-05', '2030-06-30', '2030-07-01', '2030-07-10', '2030-07-11']) {
      on(day);
      await job.execute();
      await job.execute();
    }
    expect(await told()).toEqual([
      ['person.standing_changed', id, ['standing']],
      ['person.standing_changed', id, ['standing']],
      ['membership.lapsed', id, null],
      ['person.standing_changed', id, ['standing']],
    ]);
  });

  it('tells at start the lapses a shorter grace causes, and again those a longer one brings back', async () => {
    const { directory, told, on, run } = setup();
    on('2030-05-01');
    const { id } = await addPerson(directory, { memberships: [period('2029-06-01', '2030-05-31')] });
    await run().execute();
    on('2030-06-05');
    await run().execute(); // in grace until 10 June
    await run(graceOf(0)).execute();
    expect((await told()).slice(1)).toEqual([
      ['membership.lapsed', id, null],
      ['person.standing_changed', id, ['standing']],
    ]);
    const longer = run(graceOf(30));
    await longer.execute(); // in grace again, until 30 June
    on('2030-07-01');
    await longer.execute();
    expect((await told()).slice(3)).toEqual([
      ['person.standing_changed', id, ['standing']],
      ['membership.lapsed', id, null],
      ['person.standing_changed', id, ['standing']],
    ]);
  });
});
