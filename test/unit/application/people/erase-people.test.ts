import { graceOf, NO_GRACE } from '../../../../src/domain/grace';
import { EraseLeftMembers, ErasePerson } from '../../../../src/application/people/erase-people';
import { InvalidInput, NotFound } from '../../../../src/domain/errors';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { accountsFixture } from '../../support/accounts-fixture';
import { addAccount, addPerson, principalOf } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';

const PASSWORD = 'long enough';

/** SPEC §7 and §8, the rules below the command line and the API. */
describe('data protection use cases', () => {
  it('retention refuses a date after today, dry run or not, and allows today', async () => {
    const clock = new FakeClock('2025-03-15T23:30:00Z');
    const directory = new InMemoryDirectory(clock);
    await addPerson(directory, {
      memberships: [{ club: 'C', kind: null, startDate: '2020-01-01', endDate: '2025-03-15' }],
    });
    const retention = new EraseLeftMembers(directory.unitOfWork, clock, NO_GRACE);

    for (const dryRun of [true, false]) {
      await expect(retention.execute({ endedBefore: '2025-03-16', dryRun })).rejects.toThrow(
        new InvalidInput(
          '2025-03-16 is after today (2025-03-15): only people who left before a date that has come can be erased',
        ),
      );
    }
    await expect(retention.execute({ endedBefore: '2025-3-1', dryRun: true })).rejects.toBeInstanceOf(
      InvalidInput,
    );
    expect(await retention.execute({ endedBefore: '2025-03-15', dryRun: false })).toEqual({
      erased: [],
      kept: [],
    });
  });

  it('retention never erases someone still in grace or yet to start, and lists them kept with their standing', async () => {
    const clock = new FakeClock('2025-03-15T12:00:00Z');
    const directory = new InMemoryDirectory(clock);
    const ended = (endDate: string, kind: string | null = null) => ({
      club: 'C',
      kind,
      startDate: '2020-01-01',
      endDate,
    });
    const inGrace = await addPerson(directory, { memberships: [ended('2025-03-01', 'Student')] });
    const graceOver = await addPerson(directory, { memberships: [ended('2025-03-01')] });
    // A membership recorded backwards (its end before its start, still to come): pending.
    const pending = await addPerson(directory, {
      memberships: [{ club: 'C', kind: null, startDate: '2026-01-01', endDate: '2025-01-01' }],
    });
    const retention = new EraseLeftMembers(directory.unitOfWork, clock, graceOf(5, [['student', 30]]));

    const dry = await retention.execute({ endedBefore: '2025-03-10', dryRun: true });
    expect(dry.erased.map((p) => p.id)).toEqual([graceOver.id]);
    expect(dry.kept.map((p) => [p.id, p.standing])).toEqual([
      [inGrace.id, 'grace'],
      [pending.id, 'pending'],
    ]);
    await retention.execute({ endedBefore: '2025-03-10', dryRun: false });
    expect((await directory.people.findById(inGrace.id))?.erased).toBe(false);
    expect((await directory.people.findById(pending.id))?.erased).toBe(false);
    expect((await directory.people.findById(graceOver.id))?.erased).toBe(true);
  });

  it('an erasure through the API is audited with the key, and hides admins and erased people as 404', async () => {
    const clock = new FakeClock();
    const directory = new InMemoryDirectory(clock);
    const erase = new ErasePerson(directory.unitOfWork, clock);
    const manager = await addAccount(directory, { permissions: ['manage'] });
    const member = await addPerson(directory);
    const admin = await addAccount(directory, { role: 'admin' });
    const principal = principalOf(manager.personId, ['manage'], 7);

    expect(await erase.execute({ id: member.id, confirmAccount: true, principal })).toEqual({
      erased: true,
      username: null,
    });

    const entries = await directory.audit.list({ personId: member.id });
    expect(entries.find((e) => e.action === 'person.erase')).toMatchObject({
      actorAccountId: manager.personId,
      actorKeyId: 7,
    });
    const { changes } = await directory.feed.page(0, 100);
    expect(changes.at(-1)).toMatchObject({ type: 'person.erased', personId: member.id, byKeyId: 7 });
    for (const id of [member.id, admin.personId]) {
      await expect(erase.execute({ id, confirmAccount: true, principal })).rejects.toBeInstanceOf(NotFound);
    }
  });

  it('an erased account keeps no credentials, and cannot be enabled or given new ones', async () => {
    const { directory, clock, createAccount, setDisabled } = accountsFixture();
    const holder = await addAccount(directory, { role: 'member', username: 'holder' });

    await new ErasePerson(directory.unitOfWork, clock).execute({ id: holder.personId, confirmAccount: true });

    expect(await directory.accounts.findByPersonId(holder.personId)).toBeNull();
    await expect(setDisabled.execute({ username: 'holder', disabled: false })).rejects.toBeInstanceOf(
      NotFound,
    );
    await expect(
      createAccount.execute({
        username: 'again',
        password: PASSWORD,
        permissions: [],
        personId: holder.personId,
      }),
    ).rejects.toThrow(`person ${holder.personId} was erased; an erased person cannot hold an account`);
  });
});
