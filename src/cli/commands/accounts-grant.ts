import { GrantPermission } from '../../application/accounts/grant-permission';
import { defineCommand } from '../command';
import { parsePermissions } from '../parse-values';
import { printLine } from '../write-text';

export const accountsGrant = defineCommand({
  path: ['accounts', 'grant'],
  summary: 'give an account a permission (read, write, manage)',
  description: [
    'Grants PERM (read, write or manage, or several as read,write) to the account U. Keys issued',
    'from now on may carry it; keys issued before keep the permissions they were issued with.',
    "manage (imports, erasure, exports over HTTP, the secretary's page /desk) is granted only by",
    'its name: no other permission implies it.',
  ].join('\n'),
  positionals: [{ name: 'U' }, { name: 'PERM' }],
  async run({ name, io, positionals: [username, perm], container }) {
    const permissions = parsePermissions(perm, name);
    const result = await container.get(GrantPermission).execute({ username, permissions });
    printLine(
      io.stdout,
      result.changed
        ? `granted ${permissions.join(',')} to "${username}"; its permissions: ${result.permissions.join(',')}`
        : `"${username}" already has ${permissions.join(',') || 'those permissions'}; nothing changed`,
    );
  },
});
