import { ListAccounts } from '../../application/accounts/list-accounts';
import type { Command } from '../command';
import { formatTable } from '../format-table';
import { printLine } from '../write-text';

export const accountsList: Command = {
  path: ['accounts', 'list'],
  summary: 'list the accounts',
  usage: '[--json]',
  description:
    'Lists every account: username, role, permissions, active keys, status. Never a password hash.',
  options: { json: { type: 'boolean', description: 'print a JSON array instead of a table' } },
  positionals: [],
  database: 'migrated',
  async run({ io, values, container }) {
    const accounts = await container.get(ListAccounts).execute();
    if (values.json) {
      const rows = accounts.map((a) => ({
        username: a.username,
        person_id: a.personId,
        role: a.role,
        permissions: a.permissions,
        active_keys: a.activeKeyCount,
        disabled: a.disabled,
      }));
      printLine(io.stdout, JSON.stringify(rows, null, 2));
      return;
    }
    if (accounts.length === 0) {
      printLine(io.stdout, 'no accounts yet; create one with: npm run cli -- accounts create --username U');
      return;
    }
    const rows = accounts.map((a) => [
      a.username,
      a.role,
      a.permissions.join(',') || '-',
      String(a.activeKeyCount),
      a.disabled ? 'disabled' : 'active',
      String(a.personId),
    ]);
    printLine(io.stdout, formatTable(['USERNAME', 'ROLE', 'PERMISSIONS', 'KEYS', 'STATUS', 'PERSON'], rows));
  },
};
