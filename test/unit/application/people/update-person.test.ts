import { UpdatePerson } from '../../../../src/application/people/update-person';
import type { UnitOfWork } from '../../../../src/application/ports/unit-of-work';
import { Conflict, InvalidInput, NotFound, PreconditionFailed } from '../../../../src/domain/errors';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';
import { addPerson, principalOf } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';

function setup() {
  const clock = new FakeClock('2025-03-15T12:00:00Z');
  const directory = new InMemoryDirectory(clock);
  return { clock, directory, update: new UpdatePerson(directory.people, directory.unitOfWork, clock) };
}

const writer = principalOf(7, ['read', 'write'], 42);

describe('UpdatePerson', () => {
  it('changes the given fields, trims names, bumps the version and returns the person', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory, { firstName: 'Ann', lastName: 'Lee' });

    const result = await update.execute({
      principal: writer,
      id: ann.id,
      changes: { firstName: '  Anne ', chatId: 'ann#1' },
    });

    expect(result.today).toBe('2025-03-15');
    expect(result.person).toMatchObject({ firstName: 'Anne', lastName: 'Lee', chatId: 'ann#1', version: 2 });
    expect(await directory.people.findById(ann.id)).toMatchObject({ firstName: 'Anne', version: 2 });
  });

  it('writes one audit entry per changed field with who, old and new value', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory, { firstName: 'Ann', lastName: 'Lee', chatId: 'old' });

    await update.execute({
      principal: writer,
      id: ann.id,
      changes: { firstName: 'Anne', lastName: 'Lee', chatId: null },
    });

    const entries = await directory.audit.list({ personId: ann.id });
    const byField = Object.fromEntries(entries.map((e) => [e.field, e]));
    expect(entries).toHaveLength(2);
    expect(byField.first_name).toMatchObject({
      action: 'person.update',
      subjectType: 'person',
      subjectId: ann.id,
      actorAccountId: 7,
      actorKeyId: 42,
      oldValue: 'Ann',
      newValue: 'Anne',
    });
    expect(byField.chat_id).toMatchObject({ oldValue: 'old', newValue: null });
  });

  it('treats an empty chat_id as clearing it', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory, { chatId: 'x' });
    const result = await update.execute({ principal: writer, id: ann.id, changes: { chatId: '' } });
    expect(result.person.chatId).toBeNull();
  });

  it('treats a chat_id of white space only as clearing it', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory, { chatId: 'x' });
    const result = await update.execute({ principal: writer, id: ann.id, changes: { chatId: ' \u00a0 ' } });
    expect(result.person.chatId).toBeNull();
  });

  it('stores names in NFC and counts their length in characters', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory);
    const result = await update.execute({
      principal: writer,
      id: ann.id,
      changes: { firstName: 'Zoe\u0308', lastName: '𠮷'.repeat(100) },
    });
    expect(result.person).toMatchObject({ firstName: 'Zoë', lastName: '𠮷'.repeat(100) });
    await expect(
      update.execute({ principal: writer, id: ann.id, changes: { lastName: '𠮷'.repeat(101) } }),
    ).rejects.toMatchObject({ messages: ['last_name must be at most 100 characters'] });
  });

  it('refuses a lone surrogate, NUL or control character rather than storing something else', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory, { firstName: 'Ann', lastName: 'Lee' });
    const attempt = update.execute({
      principal: writer,
      id: ann.id,
      changes: { firstName: 'A\ud800', lastName: 'L\u0000', chatId: 'c\u0001' },
    });
    await expect(attempt).rejects.toMatchObject({
      messages: [
        'first_name must not contain a lone surrogate (U+D800)',
        'last_name must not contain the NUL character (U+0000)',
        'chat_id must not contain control characters (found U+0001)',
      ],
    });
    expect(await directory.people.findById(ann.id)).toMatchObject({ firstName: 'Ann', version: 1 });
  });

  it('answers with the unchanged person, no new version and no audit entry when nothing changes', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory, { firstName: 'Ann' });
    const result = await update.execute({ principal: writer, id: ann.id, changes: { firstName: ' Ann ' } });
    expect(result.person).toMatchObject({ firstName: 'Ann', version: 1 });
    expect(await directory.audit.list({ personId: ann.id })).toEqual([]);
  });

  it("names every field the domain refuses as the API does (types and shape are the edge's)", async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory);
    const attempt = update.execute({
      principal: writer,
      id: ann.id,
      changes: { firstName: '', lastName: ' \u00a0 ', chatId: 'x'.repeat(65) },
    });
    await expect(attempt).rejects.toBeInstanceOf(InvalidInput);
    await expect(attempt).rejects.toMatchObject({
      messages: [
        'first_name must not be empty',
        'last_name must not be empty',
        'chat_id must be at most 64 characters',
      ],
    });
  });

  it('refuses a chat_id another person uses and leaves the person as it was', async () => {
    const { directory, update } = setup();
    await addPerson(directory, { chatId: 'taken' });
    const ann = await addPerson(directory, { firstName: 'Ann' });
    await expect(
      update.execute({ principal: writer, id: ann.id, changes: { firstName: 'Anne', chatId: 'taken' } }),
    ).rejects.toThrow(Conflict);
    expect(await directory.people.findById(ann.id)).toMatchObject({
      firstName: 'Ann',
      chatId: null,
      version: 1,
    });
    expect(await directory.audit.list({ personId: ann.id })).toEqual([]);
  });

  it('lets a person keep its own chat_id while changing a name', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory, { chatId: 'mine' });
    const result = await update.execute({
      principal: writer,
      id: ann.id,
      changes: { firstName: 'Anne', chatId: 'mine' },
    });
    expect(result.person).toMatchObject({ firstName: 'Anne', chatId: 'mine', version: 2 });
  });

  it('refuses a stale expected version and accepts the current one', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory);
    await update.execute({ principal: writer, id: ann.id, changes: { firstName: 'A' } });

    await expect(
      update.execute({ principal: writer, id: ann.id, changes: { firstName: 'B' }, expectedVersions: [1] }),
    ).rejects.toThrow(PreconditionFailed);
    const result = await update.execute({
      principal: writer,
      id: ann.id,
      changes: { firstName: 'B' },
      expectedVersions: [1, 2],
    });
    expect(result.person).toMatchObject({ firstName: 'B', version: 3 });
  });

  it('refuses an empty list of expected versions, which no version matches', async () => {
    const { directory, update } = setup();
    const ann = await addPerson(directory, { firstName: 'Ann' });
    await expect(
      update.execute({ principal: writer, id: ann.id, changes: { firstName: 'B' }, expectedVersions: [] }),
    ).rejects.toThrow(PreconditionFailed);
    expect(await directory.people.findById(ann.id)).toMatchObject({ firstName: 'Ann', version: 1 });
  });

  it('answers a missing person or an admin with NotFound before any precondition', async () => {
    const { directory, update } = setup();
    const admin = await addPerson(directory, { role: 'admin' });
    for (const id of [admin.id, 999]) {
      for (const expectedVersions of [[], [7]]) {
        await expect(
          update.execute({ principal: writer, id, changes: { firstName: 'X' }, expectedVersions }),
        ).rejects.toThrow(NotFound);
      }
    }
  });

  it('answers an admin and a missing person alike', async () => {
    const { directory, update } = setup();
    const admin = await addPerson(directory, { role: 'admin', firstName: 'Root' });
    await expect(
      update.execute({ principal: writer, id: admin.id, changes: { firstName: 'X' } }),
    ).rejects.toThrow(new NotFound(`person ${admin.id} not found`));
    await expect(update.execute({ principal: writer, id: 999, changes: { firstName: 'X' } })).rejects.toThrow(
      new NotFound('person 999 not found'),
    );
    expect(await directory.people.findById(admin.id)).toMatchObject({ firstName: 'Root' });
  });

  describe('when someone changes the person between its read and its write', () => {
    /** A unit of work that lets `meanwhile` change the person just before the first write. */
    function racing(directory: InMemoryDirectory, meanwhile: () => Promise<void>): UnitOfWork {
      let raced = false;
      return {
        run: (work) => directory.unitOfWork.run(work),
        commitPersonUpdate: async (update) => {
          if (!raced) {
            raced = true;
            await meanwhile();
          }
          return directory.unitOfWork.commitPersonUpdate(update);
        },
      };
    }

    it('decides again on what the person now is, and loses neither change', async () => {
      const { clock, directory } = setup();
      const ann = await addPerson(directory, { firstName: 'Ann', lastName: 'Lee' });
      const unitOfWork = racing(directory, () => directory.people.update(ann.id, { lastName: 'Leigh' }));

      const { person } = await new UpdatePerson(directory.people, unitOfWork, clock).execute({
        principal: writer,
        id: ann.id,
        changes: { firstName: 'Anne' },
      });

      expect(person).toMatchObject({ firstName: 'Anne', lastName: 'Leigh', version: 3 });
    });

    it('answers PreconditionFailed when the client asked for the version it had read', async () => {
      const { clock, directory } = setup();
      const ann = await addPerson(directory, { firstName: 'Ann', lastName: 'Lee' });
      const unitOfWork = racing(directory, () => directory.people.update(ann.id, { lastName: 'Leigh' }));

      await expect(
        new UpdatePerson(directory.people, unitOfWork, clock).execute({
          principal: writer,
          id: ann.id,
          changes: { firstName: 'Anne' },
          expectedVersions: [1],
        }),
      ).rejects.toThrow(PreconditionFailed);
      expect(await directory.people.findById(ann.id)).toMatchObject({ firstName: 'Ann', version: 2 });
    });

    it('answers NotFound when the person was erased meanwhile', async () => {
      const { clock, directory } = setup();
      const ann = await addPerson(directory, { firstName: 'Ann' });
      const unitOfWork = racing(directory, () => directory.people.erase([ann.id]));

      await expect(
        new UpdatePerson(directory.people, unitOfWork, clock).execute({
          principal: writer,
          id: ann.id,
          changes: { firstName: 'Anne' },
        }),
      ).rejects.toThrow(NotFound);
    });
  });
});
