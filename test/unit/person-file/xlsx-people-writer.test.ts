import { NO_GRACE } from '../../../src/domain/grace';
import { cancelledDownload, person } from './cancelled-download';
import { writeXlsxPeople } from '../../../src/person-file/xlsx-people-writer';

describe('writeXlsxPeople', () => {
  it('finishes, rather than waiting for ever, when the output goes away in the middle', async () => {
    const people = await writeXlsxPeople(cancelledDownload(20_000), async (write) => {
      for (let i = 0; i < 20_000; i += 1) await write(person(i), '2026-01-01', NO_GRACE);
      return { people: 20_000 };
    });

    expect(people).toBe(20_000);
  }, 20_000);
});
