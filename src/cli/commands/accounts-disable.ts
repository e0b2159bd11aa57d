import { SetAccountDisabled } from '../../application/accounts/set-account-disabled';
import { defineCommand } from '../command';
import { printLine } from '../write-text';

export const accountsDisable = defineCommand({
  path: ['accounts', 'disable'],
  summary: 'stop an account and every key it holds',
  description: [
    'Disables the account U: it can no longer get keys, and the keys it holds are refused from',
    'the next request on. Undo it with: accounts enable U',
  ].join('\n'),
  positionals: [{ name: 'U' }],
  async run({ io, positionals: [username], container }) {
    const { changed } = await container.get(SetAccountDisabled).execute({ username, disabled: true });
    printLine(io.stdout, changed ? `disabled "${username}"` : `"${username}" was already disabled`);
  },
});
