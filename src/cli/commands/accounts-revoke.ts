import { RevokePermission } from '../../application/accounts/revoke-permission';
import { defineCommand } from '../command';
import { parsePermissions } from '../parse-values';
import { printLine } from '../write-text';

export const accountsRevoke = defineCommand({
  path: ['accounts', 'revoke'],
  summary: 'take a permission away from an account',
  description: [
    'Revokes PERM (read, write or manage, or several as read,write) from the account U and, at once, from every active',
    'key it holds: granting PERM again later does not give it back to those keys.',
  ].join('\n'),
  positionals: [{ name: 'U' }, { name: 'PERM' }],
  async run({ name, io, positionals: [username, perm], container }) {
    const permissions = parsePermissions(perm, name);
    const result = await container.get(RevokePermission).execute({ username, permissions });
    printLine(
      io.stdout,
      result.changed
        ? `revoked ${permissions.join(',')} from "${username}"; its permissions: ${result.permissions.join(',') || 'none'}`
        : `"${username}" does not have ${permissions.join(',') || 'those permissions'}; nothing changed`,
    );
  },
});
