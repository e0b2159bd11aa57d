import { ExportPersonData } from '../../application/people/export-person-data';
import { personDataView } from '../../application/people/person-data-view';
import { TYPES } from '../../application/ports/tokens';
import type { TokenService } from '../../application/ports/token-service';
import { defineCommand } from '../command';
import { IdentifyPerson } from '../../application/people/identify-person';
import { UsageError } from '../cli-errors';
import { MEMBER_NUMBER_OPTION, personReference } from '../person-reference';
import { writePrivateFile } from '../private-file';
import { printLine, writeText } from '../write-text';

/** An argument given with --member-number that was meant as an ID, not a FILE named 12. */
const looksLikeId = (argument: string) => /^\d+$/.test(argument);

export const peopleExportData = defineCommand({
  path: ['people', 'export-data'],
  summary: 'everything the directory holds about one person, as JSON (subject access)',
  usage: 'ID [FILE] | --member-number N [FILE]',
  description: [
    'Writes, as one JSON object, everything the directory holds about person ID, or about the',
    'person with member number N: the person (with contacts and memberships), the account (without',
    'its password hash) and every key it was issued (tokens masked, as they are never stored), the',
    'audit entries about them and those their account made, and the changes about them in the',
    'change feed. To FILE, or to standard output when no FILE is given',
    '(npx membership-directory people export-data ID > FILE). `people find TEXT` finds the ID.',
  ].join('\n'),
  options: { ...MEMBER_NUMBER_OPTION },
  positionals: [
    { name: 'ID', optional: true },
    { name: 'FILE', optional: true },
  ],
  // With --member-number the one argument is FILE, unless it looks like an ID (refused below).
  files: (values, positionals) =>
    values['member-number'] === undefined
      ? [1]
      : positionals.length === 1 && !looksLikeId(positionals[0])
        ? [0]
        : [],
  async run({ name, io, values, positionals, container }) {
    const memberNumber = values['member-number'] as string | undefined;
    if (memberNumber !== undefined && (positionals.length > 1 || looksLikeId(positionals[0] ?? ''))) {
      throw new UsageError('give either an ID or --member-number, not both (a FILE named 12 is ./12)', name);
    }
    const [id, file] = memberNumber === undefined ? positionals : [undefined, positionals[0]];
    const reference = personReference(id, memberNumber, name);
    if (reference === undefined) throw new UsageError('give a person ID or --member-number N', name);
    const personId =
      'id' in reference ? reference.id : (await container.get(IdentifyPerson).execute(reference)).id;
    const data = await container.get(ExportPersonData).execute({ id: personId });
    const mask = (prefix: string) => container.get<TokenService>(TYPES.TokenService).mask(prefix);
    const text = `${JSON.stringify(personDataView(data, mask), null, 2)}\n`;
    if (file === undefined) {
      await writeText(io.stdout, text);
      return;
    }
    await writePrivateFile(file, (out) => writeText(out, text));
    printLine(io.stdout, `wrote what the directory holds about person ${data.person.id} to ${file}`);
  },
});
