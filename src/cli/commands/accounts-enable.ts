import { SetAccountDisabled } from '../../application/accounts/set-account-disabled';
import { defineCommand } from '../command';
import { printLine } from '../write-text';

export const accountsEnable = defineCommand({
  path: ['accounts', 'enable'],
  summary: 'undo accounts disable',
  description: 'Enables the account U again; its keys that are neither revoked nor expired work again.',
  positionals: [{ name: 'U' }],
  async run({ io, positionals: [username], container }) {
    const { changed } = await container.get(SetAccountDisabled).execute({ username, disabled: false });
    printLine(io.stdout, changed ? `enabled "${username}"` : `"${username}" was not disabled`);
  },
});
