import { ListAccounts } from '../../application/accounts/list-accounts';
import { defineCommand } from '../command';
import { formatTable } from '../format-table';
import { printList } from '../print-list';

export const accountsList = defineCommand({
  path: ['accounts', 'list'],
  summary: 'list the accounts',
  description:
    'Lists every account: username, role, permissions, active keys, status. Never a password hash.',
  options: { json: { type: 'boolean', description: 'print a JSON array instead of a table' } },
  async run({ io, values, container }) {
    printList(io.stdout, await container.get(ListAccounts).execute(), values.json === true, {
      json: (a) => ({
        username: a.username,
        person_id: a.personId,
        role: a.role,
        permissions: a.permissions,
        active_keys: a.activeKeyCount,
        disabled: a.disabled,
      }),
      none: 'no accounts yet; create one with: npm run cli -- accounts create --username U',
      text: (accounts) =>
        formatTable(
          ['USERNAME', 'ROLE', 'PERMISSIONS', 'KEYS', 'STATUS', 'PERSON'],
          accounts.map((a) => [
            a.username,
            a.role,
            a.permissions.join(',') || '-',
            String(a.activeKeyCount),
            a.disabled ? 'disabled' : 'active',
            String(a.personId),
          ]),
        ),
    });
  },
});
