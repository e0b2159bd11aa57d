import { ExportPersonData } from '../../application/people/export-person-data';
import { personDataView } from '../../application/people/person-data-view';
import { TYPES } from '../../application/ports/tokens';
import type { TokenService } from '../../application/ports/token-service';
import type { Command } from '../command';
import { parsePositiveInteger } from '../parse-values';
import { writePrivateFile } from '../private-file';
import { printLine, writeText } from '../write-text';

const NAME = 'people export-data';

export const peopleExportData: Command = {
  path: ['people', 'export-data'],
  summary: 'everything the directory holds about one person, as JSON (subject access)',
  usage: 'ID [FILE]',
  description: [
    'Writes, as one JSON object, everything the directory holds about person ID: the person (with',
    'contacts and memberships), the account (without its password hash) and every key it was',
    'issued (tokens masked, as they are never stored), the audit entries about them and those',
    'their account made, and the changes about them in the change feed. To FILE, or to standard',
    'output when no FILE is given (npm run --silent cli -- people export-data ID > FILE).',
  ].join('\n'),
  options: {},
  positionals: [{ name: 'ID' }, { name: 'FILE', optional: true }],
  database: 'migrated',
  async run({ io, positionals: [id, file], container }) {
    const data = await container.get(ExportPersonData).execute({ id: parsePositiveInteger(id, 'ID', NAME) });
    const mask = (prefix: string) => container.get<TokenService>(TYPES.TokenService).mask(prefix);
    const text = `${JSON.stringify(personDataView(data, mask), null, 2)}\n`;
    if (file === undefined) {
      await writeText(io.stdout, text);
      return;
    }
    await writePrivateFile(file, (out) => writeText(out, text));
    printLine(io.stdout, `wrote what the directory holds about person ${data.person.id} to ${file}`);
  },
};
