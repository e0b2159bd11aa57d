import { Writable } from 'node:stream';
import { NO_GRACE } from '../../../src/domain/grace';
import type { Person } from '../../../src/domain/person';
import { writeXlsxPeople } from '../../../src/person-file/xlsx-people-writer';

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
      if (bytes > 20_000) out.destroy();
      else setTimeout(done, 2);
    },
  });
  return out;
}

describe('writeXlsxPeople', () => {
  it('finishes, rather than waiting for ever, when the output goes away in the middle', async () => {
    const people = await writeXlsxPeople(cancelledDownload(), async (write) => {
      for (let i = 0; i < 20_000; i += 1) await write(person(i), '2026-01-01', NO_GRACE);
      return { people: 20_000 };
    });

    expect(people).toBe(20_000);
  }, 20_000);
});
