import { type FoundPerson, FindPeople } from '../../application/people/find-people';
import { defineCommand } from '../command';
import { formatTable } from '../format-table';
import { printLine } from '../write-text';

/** People as `people find` lists them, and `people erase` shows whom it is about to erase. */
export function foundPeopleTable(people: FoundPerson[]): string {
  const rows = people.map((p) => [
    String(p.id),
    p.memberNumber ?? '-',
    p.firstName,
    p.lastName,
    p.firstEmail ?? '-',
    p.current ? 'yes' : 'no',
    p.standing,
  ]);
  return formatTable(
    ['ID', 'MEMBER NUMBER', 'FIRST NAME', 'LAST NAME', 'EMAIL', 'CURRENT', 'STANDING'],
    rows,
  );
}

export const peopleFind = defineCommand({
  path: ['people', 'find'],
  summary: 'find people by name, email, member number or chat_id',
  description: [
    'Lists the people whose first or last name contains TEXT (case-insensitively; %, _ and \\ are',
    'plain characters), or whose email (case-insensitively), member number or chat_id is TEXT: id,',
    'member number, names, first email, whether a membership is current today, and the standing',
    '(current, grace, pending, lapsed or none; grace after an end date by GRACE_DAYS). Admins and',
    'erased people are never listed. The id or member number then names them to other commands',
    '(people erase, people export-data).',
  ].join('\n'),
  positionals: [{ name: 'TEXT' }],
  async run({ io, positionals: [text], container }) {
    const people = await container.get(FindPeople).execute({ text });
    if (people.length === 0) {
      printLine(io.stdout, `nobody found for ${JSON.stringify(text.trim())}`);
      return;
    }
    printLine(io.stdout, foundPeopleTable(people));
  },
});
