import { SetAccountDisabled } from '../../application/accounts/set-account-disabled';
import type { Command } from '../command';
import { printLine } from '../write-text';

export const accountsEnable: Command = {
  path: ['accounts', 'enable'],
  summary: 'undo accounts disable',
  usage: 'U',
  description: 'Enables the account U again; its keys that are neither revoked nor expired work again.',
  options: {},
  positionals: [{ name: 'U' }],
  database: 'migrated',
  async run({ io, positionals: [username], container }) {
    const { changed } = await container.get(SetAccountDisabled).execute({ username, disabled: false });
    printLine(io.stdout, changed ? `enabled "${username}"` : `"${username}" was not disabled`);
  },
};
