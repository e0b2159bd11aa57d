import {
  ImportProblems,
  ImportRefused,
  KEPT_PROBLEMS,
} from '../../../../src/application/people/import-problems';
import { InvalidInput } from '../../../../src/domain/errors';
import { importFixture, record } from '../../support/import-fixture';

describe('the problems an import reports', () => {
  it('keeps the first messages by record, each record’s in the order found, and counts them all', () => {
    const problems = new ImportProblems();
    for (let index = KEPT_PROBLEMS + 50; index >= 2; index--) problems.add(index, `record ${index}`);
    problems.add(0, 'record 0: first');
    problems.add(1, 'record 1');
    problems.add(0, 'record 0: second');

    const error = problems.toError();

    expect(error.total).toBe(KEPT_PROBLEMS + 52);
    expect(error.messages).toHaveLength(KEPT_PROBLEMS);
    expect(error.messages.slice(0, 4)).toEqual([
      'record 0: first',
      'record 0: second',
      'record 1',
      'record 2',
    ]);
    expect(error.messages.at(-1)).toBe(`record ${KEPT_PROBLEMS - 2}`);
  });

  it('a file of many bad records fails with the first messages and the count of all, not one message each', async () => {
    const { importPeople } = importFixture();
    const records = Array.from({ length: 5000 }, (_, i) => record({ first_name: '', last_name: `L${i}` }));

    const failure = importPeople.execute({ records }).catch((error: unknown) => error);

    const error = (await failure) as InvalidInput;
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error.total).toBe(5000);
    expect(error.messages).toHaveLength(KEPT_PROBLEMS);
    expect(error.messages[0]).toMatch(/^record 0: first_name/);
    expect(error.messages.at(-1)).toMatch(new RegExp(`^record ${KEPT_PROBLEMS - 1}: first_name`));
  });

  it('tells the kinds of problem found, even of those whose message was not kept, and is still a bad input', () => {
    const problems = new ImportProblems();
    for (let index = 0; index < KEPT_PROBLEMS; index++) problems.add(index, `record ${index}`, 'taken');
    problems.add(KEPT_PROBLEMS, 'the last', 'unknown');

    const error = problems.toError();

    expect(error).toBeInstanceOf(ImportRefused);
    expect(error).toBeInstanceOf(InvalidInput);
    expect([...error.kinds].sort()).toEqual(['taken', 'unknown']);
    expect(error.messages).not.toContain('the last');
    expect(new ImportProblems().toError().kinds.size).toBe(0);
  });
});
