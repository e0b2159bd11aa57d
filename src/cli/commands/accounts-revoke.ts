import { RevokePermission } from '../../application/accounts/revoke-permission';
import type { Command } from '../command';
import { parsePermissions } from '../parse-values';
import { printLine } from '../write-text';

export const accountsRevoke: Command = {
  path: ['accounts', 'revoke'],
  summary: 'take a permission away from an account',
  usage: 'U PERM',
  description: [
    'Revokes PERM (read, write, or read,write) from the account U and, at once, from every active',
    'key it holds: granting PERM again later does not give it back to those keys.',
  ].join('\n'),
  options: {},
  positionals: [{ name: 'U' }, { name: 'PERM' }],
  database: 'migrated',
  async run({ io, positionals: [username, perm], container }) {
    const permissions = parsePermissions(perm, 'accounts revoke');
    const result = await container.get(RevokePermission).execute({ username, permissions });
    printLine(
      io.stdout,
      result.changed
        ? `revoked ${permissions.join(',')} from "${username}"; its permissions: ${result.permissions.join(',') || 'none'}`
        : `"${username}" does not have ${permissions.join(',') || 'those permissions'}; nothing changed`,
    );
  },
};
