import type { Writable } from 'node:stream';
import { ExportPeople } from '../../application/people/export-people';
import type { Person } from '../../domain/person';
import type { Command } from '../command';
import { toPersonRecord } from '../person-file/person-file-record';
import { writePrivateFile } from '../private-file';
import { printLine, writeText } from '../write-text';

// Records are gathered into chunks of about this size before a write: fewer, larger writes.
const CHUNK_CHARACTERS = 64 * 1024;

export const exportCommand: Command = {
  path: ['export'],
  summary: 'export every person to a JSON file (or standard output)',
  usage: '[FILE]',
  description: [
    'Writes every person, admins included, as a JSON array in the format `import` reads, one',
    'person a line, to FILE or to standard output, with their `id` and `member_number`: edit it and',
    'import it again to bring the directory up to date (importing it unchanged changes nothing).',
    "Another directory takes the people without their ids (ids name this directory's people).",
    "FILE holds members' contacts: it is made readable by its owner only (0600).",
    'Erased people, accounts and keys are not exported.',
    'Give a FILE when running through npm: npm writes its own header lines to standard output',
    '(or run the tool without npm: npx membership-directory export > FILE).',
  ].join('\n'),
  options: {},
  positionals: [{ name: 'FILE', optional: true }],
  database: 'migrated',
  async run({ io, positionals: [file], container }) {
    const exportPeople = container.get(ExportPeople);
    if (file === undefined) {
      await writeArray(io.stdout, (write) => exportPeople.execute({ write }));
      return;
    }
    // Private: every member's contacts are in it (as people export-data's file is).
    const people = await writePrivateFile(file, (out) =>
      writeArray(out, (write) => exportPeople.execute({ write })),
    );
    printLine(io.stdout, `exported ${people} people to ${file}`);
  },
};

async function writeArray(
  out: Writable,
  produce: (write: (person: Person) => Promise<void>) => Promise<{ people: number }>,
): Promise<number> {
  let buffer = '[';
  let first = true;
  const { people } = await produce(async (person) => {
    buffer += `${first ? '\n' : ',\n'}${JSON.stringify(toPersonRecord(person))}`;
    first = false;
    if (buffer.length >= CHUNK_CHARACTERS) {
      await writeText(out, buffer);
      buffer = '';
    }
  });
  await writeText(out, `${buffer}${first ? ']\n' : '\n]\n'}`);
  return people;
}
