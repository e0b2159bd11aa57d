import { NO_GRACE } from '../../../src/domain/grace';
import { cancelledDownload, person } from './cancelled-download';
import {
  type PeopleProducer,
  writeCsvPeople,
  writeJsonPeople,
} from '../../../src/person-file/people-writers';

const produce: PeopleProducer = async (write) => {
  for (let i = 0; i < 20_000; i += 1) await write(person(i), '2026-01-01', NO_GRACE);
  return { people: 20_000 };
};

describe('the CSV and JSON export writers', () => {
  it.each([
    ['csv', () => writeCsvPeople(cancelledDownload(200_000), produce, { current: false })],
    ['json', () => writeJsonPeople(cancelledDownload(200_000), produce)],
  ])(
    '%s: finishes, rather than waiting for ever, when the output goes away in the middle',
    async (_format, run) => {
      await expect(run()).resolves.toBe(20_000);
    },
    20_000,
  );
});
