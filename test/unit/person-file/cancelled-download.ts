import { Writable } from 'node:stream';
import type { Person } from '../../../src/domain/person';

/** A member with nothing but names and a number: enough rows to fill a writer's buffers. */
export function person(i: number): Person {
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

/** An output that takes `bytes`, slowly, and then goes away, as a cancelled download does. */
export function cancelledDownload(bytes: number): Writable {
  let taken = 0;
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      taken += chunk.length;
      if (taken > bytes) out.destroy();
      else setTimeout(done, 2);
    },
  });
  return out;
}
