import { EraseLeftMembers, ErasePerson } from '../../application/people/erase-people';
import { isCalendarDate } from '../../domain/calendar-date';
import { UsageError } from '../cli-errors';
import type { Command } from '../command';
import { parsePositiveInteger } from '../parse-values';
import { printLine, writeText } from '../write-text';

const NAME = 'people erase';

export const peopleErase: Command = {
  path: ['people', 'erase'],
  summary: 'erase a person, or every member who left before a date (data protection)',
  usage: 'ID [--yes] | --ended-before DATE [--dry-run]',
  description: [
    'Erases person ID in one transaction: the names become "erased"; chat_id, planner_id and',
    'member_number are cleared; contacts are deleted; membership periods (club, kind, dates) stay',
    "for the society's statistics; an account is disabled and its keys revoked (refused at once by",
    'every instance); old and new values in audit entries about the person become "[erased]"; an',
    'audit entry records that the command line erased them. Erased people never appear in the',
    'API again (404, like an admin), and the change feed says person.erased. Admins are not',
    'erased. A person holding an account is erased only with --yes.',
    'With --ended-before DATE (YYYY-MM-DD) instead of ID: erases every member whose memberships all',
    'ended before DATE and who holds no account; --dry-run lists them and erases nobody.',
  ].join('\n'),
  options: {
    yes: { type: 'boolean', description: 'erase a person who holds an account (which is disabled)' },
    'ended-before': { type: 'string', value: 'DATE', description: 'erase every member who left before DATE' },
    'dry-run': {
      type: 'boolean',
      description: 'with --ended-before: list who would be erased, erase nobody',
    },
  },
  positionals: [{ name: 'ID', optional: true }],
  database: 'migrated',
  async run({ io, values, positionals: [id], container }) {
    const endedBefore = values['ended-before'] as string | undefined;
    if (endedBefore === undefined) {
      if (id === undefined) throw new UsageError('give a person ID or --ended-before DATE', NAME);
      if (values['dry-run']) throw new UsageError('--dry-run goes with --ended-before', NAME);
      const personId = parsePositiveInteger(id, 'ID', NAME);
      const { erased, username } = await container
        .get(ErasePerson)
        .execute({ id: personId, confirmAccount: values.yes === true });
      if (!erased) printLine(io.stdout, `person ${personId} was already erased`);
      else if (username === null) printLine(io.stdout, `erased person ${personId}`);
      else printLine(io.stdout, `erased person ${personId} and disabled the account "${username}"`);
      return;
    }
    if (id !== undefined) throw new UsageError('give either a person ID or --ended-before, not both', NAME);
    if (values.yes) throw new UsageError('--yes goes with a person ID', NAME);
    if (!isCalendarDate(endedBefore)) {
      throw new UsageError(`--ended-before takes a date such as 2020-01-01, not "${endedBefore}"`, NAME);
    }
    const dryRun = values['dry-run'] === true;
    const people = await container.get(EraseLeftMembers).execute({ endedBefore, dryRun });
    for (const person of people) {
      await writeText(
        io.stdout,
        `${dryRun ? 'would erase' : 'erased'} person ${person.id} (${person.firstName} ${person.lastName})\n`,
      );
    }
    const count = people.length === 1 ? '1 member' : `${people.length} members`;
    printLine(
      io.stdout,
      dryRun
        ? `dry run: ${count} left before ${endedBefore} and would be erased; nobody was erased`
        : `erased ${count} who left before ${endedBefore}`,
    );
  },
};
