import { CreateAccount } from '../../application/accounts/create-account';
import { UsageError } from '../cli-errors';
import { defineCommand } from '../command';
import { parsePermissions, parsePositiveInteger } from '../parse-values';
import { readPassword } from '../read-password';
import { printLine } from '../write-text';

export const accountsCreate = defineCommand({
  path: ['accounts', 'create'],
  summary: 'create an account (login credentials) for the API',
  usage:
    '--username U [--person-id N | --first-name F --last-name L] [--admin] [--permissions read,write] [--password-env VAR]',
  description: [
    'Creates login credentials. With --person-id they are attached to a person already in the',
    'directory; with --first-name and --last-name a new member is created to hold them; with',
    'neither, a new admin-role account (for an operator or a service such as a chat bot).',
    'Admins never appear in people results. A new account has no permissions unless given:',
    'read lets its keys search people, write lets them change people, manage lets them import,',
    "erase and export over HTTP and sign in to the secretary's page (/desk).",
    'The password (at least 8 characters) is read from the first line of standard input, or from',
    'the environment variable named by --password-env; at a terminal it is asked for, unechoed.',
  ].join('\n'),
  options: {
    username: { type: 'string', value: 'U', description: 'the login name: letters, digits and . _ @ -' },
    'person-id': { type: 'string', value: 'N', description: 'attach the account to this existing person' },
    'first-name': { type: 'string', value: 'F', description: 'first name of a new person' },
    'last-name': { type: 'string', value: 'L', description: 'last name of a new person' },
    admin: { type: 'boolean', description: 'make the person an admin (hidden from people results)' },
    permissions: {
      type: 'string',
      value: 'LIST',
      description: 'comma-separated: read, write (default: none)',
    },
    'password-env': {
      type: 'string',
      value: 'VAR',
      description: 'read the password from this environment variable',
    },
  },
  async run({ name, io, values, container }) {
    const username = values.username as string | undefined;
    if (username === undefined) throw new UsageError('--username is required', name);
    const personIdText = values['person-id'] as string | undefined;
    const firstName = values['first-name'] as string | undefined;
    const lastName = values['last-name'] as string | undefined;
    if (personIdText !== undefined && (firstName !== undefined || lastName !== undefined)) {
      throw new UsageError('give either --person-id or --first-name and --last-name, not both', name);
    }
    if ((firstName === undefined) !== (lastName === undefined)) {
      throw new UsageError('--first-name and --last-name go together', name);
    }
    const personId =
      personIdText === undefined ? undefined : parsePositiveInteger(personIdText, '--person-id', name);
    const permissions = parsePermissions((values.permissions as string | undefined) ?? '', name);
    const password = await readPassword(io, values['password-env'] as string | undefined);

    const account = await container.get(CreateAccount).execute({
      username,
      password,
      permissions,
      personId,
      firstName,
      lastName,
      admin: values.admin === true,
    });
    printLine(
      io.stdout,
      `created the account "${account.username}" (person ${account.personId}, role ${account.role}, ` +
        `permissions: ${account.permissions.join(',') || 'none'})`,
    );
    if (account.permissions.length === 0) {
      printLine(
        io.stderr,
        `note: the account has no permissions yet; grant them with: npm run cli -- accounts grant ${account.username} read`,
      );
    }
  },
});
