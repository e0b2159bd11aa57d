import { ChangePassword } from '../../application/accounts/change-password';
import { defineCommand } from '../command';
import { readPassword } from '../read-password';
import { printLine } from '../write-text';

export const accountsPassword = defineCommand({
  path: ['accounts', 'password'],
  summary: "set an account's password",
  description: [
    'Sets a new password (at least 8 characters) for the account U, read from the first line of',
    'standard input or from the environment variable named by --password-env; at a terminal it',
    'is asked for, unechoed. Keys already issued stay valid; revoke them if they leaked.',
  ].join('\n'),
  options: {
    'password-env': {
      type: 'string',
      value: 'VAR',
      description: 'read the password from this environment variable',
    },
  },
  positionals: [{ name: 'U' }],
  async run({ io, values, positionals: [username], container }) {
    const password = await readPassword(io, values['password-env'] as string | undefined);
    await container.get(ChangePassword).execute({ username, password });
    printLine(io.stdout, `changed the password of "${username}"`);
  },
});
