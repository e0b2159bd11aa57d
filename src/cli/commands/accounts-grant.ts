import { GrantPermission } from '../../application/accounts/grant-permission';
import type { Command } from '../command';
import { parsePermissions } from '../parse-values';
import { printLine } from '../write-text';

export const accountsGrant: Command = {
  path: ['accounts', 'grant'],
  summary: 'give an account a permission (read, write)',
  usage: 'U PERM',
  description: [
    'Grants PERM (read, write, or both as read,write) to the account U. Keys issued from now on',
    'may carry it; keys issued before keep the permissions they were issued with.',
  ].join('\n'),
  options: {},
  positionals: [{ name: 'U' }, { name: 'PERM' }],
  database: 'migrated',
  async run({ io, positionals: [username, perm], container }) {
    const permissions = parsePermissions(perm, 'accounts grant');
    const result = await container.get(GrantPermission).execute({ username, permissions });
    printLine(
      io.stdout,
      result.changed
        ? `granted ${permissions.join(',')} to "${username}"; its permissions: ${result.permissions.join(',')}`
        : `"${username}" already has ${permissions.join(',') || 'those permissions'}; nothing changed`,
    );
  },
};
