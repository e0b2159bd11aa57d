import { Writable } from 'node:stream';
import { NO_GRACE } from '../../../src/domain/grace';
import type { Person } from '../../../src/domain/person';
import {
  type PeopleProducer,
  writeCsvPeople,
  writeJsonPeople,
} from '../../../src/person-file/people-writers';

function person(i: number): Person {
  return {
    id: i + 1,
    memberNumber: `000${i}`,
    firstName: `First${i}`,
    lastName: `Last${i}`,
    chatId: null,
    plannerId: null,
    contacts: [],
    memberships: [],
  } as unknown as Person;
}

/** An output that takes a little, slowly, and then goes away, as a cancelled download does. */
function cancelledDownload(): Writable {
  let bytes = 0;
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > 200_000) out.destroy();
      else setTimeout(done, 2);
    },
  });
  return out;
}

const produce: PeopleProducer = async (write) => {
  for (let i = 0; i < 20_000; i += 1) await write(person(i), '2026-01-01', NO_GRACE);
  return { people: 20_000 };
};

describe('the CSV and JSON export writers', () => {
  it.each([
    ['csv', () => writeCsvPeople(cancelledDownload(), produce, { current: false })],
    ['json', () => writeJsonPeople(cancelledDownload(), produce)],
  ])(
    '%s: finishes, rather than waiting for ever, when the output goes away in the middle',
    async (_format, run) => {
      await expect(run()).resolves.toBe(20_000);
    },
    20_000,
  );
});
