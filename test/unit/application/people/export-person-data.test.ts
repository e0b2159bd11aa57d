import { NO_GRACE } from '../../../../src/domain/grace';
import { ExportPersonData } from '../../../../src/application/people/export-person-data';
import { addAccount, addPerson } from '../../support/directory-fixtures';
import { FakeClock } from '../../support/fake-clock';
import { InMemoryDirectory } from '../../../../src/infrastructure/in-memory/in-memory-directory';

describe('ExportPersonData', () => {
  it('the subject-access export clears the values of entries the subject made about others', async () => {
    const clock = new FakeClock();
    const directory = new InMemoryDirectory(clock);
    const subject = await addAccount(directory, { role: 'member' });
    const other = await addPerson(directory);
    const entry = (subjectType: string, subjectId: number) => ({
      actorAccountId: subject.personId,
      actorKeyId: 1,
      action: 'person.update',
      subjectType,
      subjectId,
      field: 'first_name',
      oldValue: 'Old',
      newValue: 'New',
    });
    await directory.audit.record([entry('person', other.id), entry('person', subject.personId)]);

    const data = await new ExportPersonData(directory.unitOfWork, clock, NO_GRACE).execute({
      id: subject.personId,
    });

    const values = data.audit
      .filter((e) => e.action === 'person.update')
      .map((e) => [e.subjectId, e.oldValue, e.newValue]);
    expect(values).toEqual(
      expect.arrayContaining([
        [other.id, null, null],
        [subject.personId, 'Old', 'New'],
      ]),
    );
    await expect(
      new ExportPersonData(directory.unitOfWork, clock, NO_GRACE).execute({
        id: subject.personId,
        visibleOnly: true,
      }),
    ).resolves.toEqual(data);
  });
});
