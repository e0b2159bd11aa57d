import { type IdentifiedPerson, IdentifyPerson } from '../../application/people/identify-person';
import { EraseLeftMembers, ErasePerson } from '../../application/people/erase-people';
import { isCalendarDate } from '../../domain/calendar-date';
import { foldCase } from '../../domain/text';
import { askLine } from '../ask-line';
import { CliFailure, UsageError } from '../cli-errors';
import type { CliIo } from '../cli-io';
import { defineCommand } from '../command';
import { foundPeopleTable } from './people-find';
import { describeReference, MEMBER_NUMBER_OPTION, personReference } from '../person-reference';
import { printLine, writeText } from '../write-text';

export const peopleErase = defineCommand({
  path: ['people', 'erase'],
  summary: 'erase a person, or every member who left before a date (data protection)',
  usage: 'ID [--yes] | --member-number N [--yes] | --ended-before DATE [--dry-run]',
  description: [
    'Erases person ID (or the person with member number N) in one transaction: the names become',
    '"erased"; chat_id, planner_id and member_number are cleared; contacts are deleted; membership',
    "periods (club, kind, dates) stay for the society's statistics; an account is disabled and its",
    'keys revoked (refused at once by every instance); old and new values in audit entries about',
    'the person become "[erased]"; an audit entry records that the command line erased them.',
    'Erased people never appear in the API again (404, like an admin), and the change feed says',
    'person.erased. Admins are not erased. It cannot be undone, so it is confirmed: at a terminal',
    'the tool shows who will be erased and asks for their member number (or, when they have none,',
    'their full name) to be typed back; anything else cancels. Without a terminal (a script, a',
    'pipe), --yes confirms instead; --yes also skips the question at a terminal.',
    'With --ended-before DATE (YYYY-MM-DD) instead: erases every member whose memberships all',
    'ended before DATE and who holds no account, except those still current, in grace or',
    'pending (GRACE_DAYS); --dry-run lists them, and those kept with their standing, and erases nobody.',
  ].join('\n'),
  options: {
    ...MEMBER_NUMBER_OPTION,
    yes: { type: 'boolean', description: 'erase without asking (needed when not at a terminal)' },
    'ended-before': { type: 'string', value: 'DATE', description: 'erase every member who left before DATE' },
    'dry-run': {
      type: 'boolean',
      description: 'with --ended-before: list who would be erased, erase nobody',
    },
  },
  positionals: [{ name: 'ID', optional: true }],
  async run({ name, io, values, positionals: [id], container }) {
    const endedBefore = values['ended-before'] as string | undefined;
    const memberNumber = values['member-number'] as string | undefined;
    if (endedBefore === undefined) {
      const reference = personReference(id, memberNumber, name);
      if (reference === undefined) {
        throw new UsageError('give a person ID, --member-number N or --ended-before DATE', name);
      }
      if (values['dry-run']) throw new UsageError('--dry-run goes with --ended-before', name);
      const person = await container.get(IdentifyPerson).execute(reference);
      const who = describeReference(reference, person.id);
      // An admin is refused and an erased person left as they are by the use case: nothing to confirm.
      let confirmed = values.yes === true || person.admin || person.erased;
      if (!confirmed) {
        if (io.stdin.isTTY !== true) {
          throw new CliFailure(
            `standard input is not a terminal, so erasing cannot be confirmed here: give --yes to erase ${who}`,
          );
        }
        await confirmAtTerminal(io, person);
        confirmed = true;
      }
      const { erased, username } = await container
        .get(ErasePerson)
        .execute({ id: person.id, confirmAccount: confirmed });
      if (!erased) printLine(io.stdout, `${who} was already erased`);
      else if (username === null) printLine(io.stdout, `erased ${who}`);
      else printLine(io.stdout, `erased ${who} and disabled the account "${username}"`);
      return;
    }
    if (id !== undefined || memberNumber !== undefined) {
      throw new UsageError('give either a person (ID or --member-number) or --ended-before, not both', name);
    }
    if (values.yes) throw new UsageError('--yes goes with a person ID', name);
    if (!isCalendarDate(endedBefore)) {
      throw new UsageError(`--ended-before takes a date such as 2020-01-01, not "${endedBefore}"`, name);
    }
    const dryRun = values['dry-run'] === true;
    const { erased: people, kept } = await container.get(EraseLeftMembers).execute({ endedBefore, dryRun });
    for (const person of people) {
      await writeText(
        io.stdout,
        `${dryRun ? 'would erase' : 'erased'} person ${person.id} (${person.firstName} ${person.lastName})\n`,
      );
    }
    // Their end dates are past, but they are still members (in grace, or yet to start): said in a
    // dry run, so that the secretary sees why they are not on the list.
    if (dryRun) {
      for (const person of kept) {
        await writeText(
          io.stdout,
          `would keep person ${person.id} (${person.firstName} ${person.lastName}): standing ${person.standing}\n`,
        );
      }
    }
    const count = people.length === 1 ? '1 member' : `${people.length} members`;
    printLine(
      io.stdout,
      dryRun
        ? `dry run: ${count} left before ${endedBefore} and would be erased; nobody was erased`
        : `erased ${count} who left before ${endedBefore}`,
    );
  },
});

/** Spaces as typed do not matter, nor case (as names are matched everywhere): the letters do. */
function sameName(typed: string, name: string): boolean {
  const tidy = (text: string) => foldCase(text.normalize('NFC').trim().replace(/\s+/g, ' '));
  return tidy(typed) === tidy(name);
}

/**
 * Shows who is about to be erased and asks for something only that person has to be typed back:
 * a slip of the finger in an ID erases the wrong member otherwise, and that cannot be undone.
 */
async function confirmAtTerminal(io: CliIo, person: IdentifiedPerson): Promise<void> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  say('This erases, and it cannot be undone:');
  say(foundPeopleTable([person]));
  if (person.hasAccount) say('They hold an account: it is disabled and its keys are revoked.');
  const fullName = `${person.firstName} ${person.lastName}`;
  const expected = person.memberNumber === null ? 'full name' : 'member number';
  const answer = await askLine(
    io,
    `To confirm, type their ${expected} (${person.memberNumber ?? fullName}): `,
  );
  if (answer === null) throw new CliFailure('cancelled; nobody was erased');
  const matches =
    person.memberNumber === null ? sameName(answer, fullName) : answer.trim() === person.memberNumber;
  if (!matches) throw new CliFailure(`cancelled: that is not their ${expected}; nobody was erased`);
}
