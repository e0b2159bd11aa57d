import { auditEntryView } from '../../application/audit/audit-entry-view';
import { ReadAuditLog } from '../../application/audit/read-audit-log';
import type { AuditEntry } from '../../domain/audit-entry';
import { defineCommand } from '../command';
import { parsePositiveInteger, parseSince } from '../parse-values';
import { printList } from '../print-list';

export const auditCommand = defineCommand({
  path: ['audit'],
  summary: 'show the audit log, newest first',
  description: [
    'Shows who changed what and when: changes to people through the API, keys issued and',
    'revoked, and changes made with this tool (imports, erasures, accounts: shown as made by "cli").',
    'A DATE such as 2024-05-01 starts at midnight in DIRECTORY_TIMEZONE.',
  ].join('\n'),
  options: {
    person: { type: 'string', value: 'N', description: 'only entries about person N or made by account N' },
    since: { type: 'string', value: 'DATE', description: 'only entries from this date (or ISO time) on' },
    limit: { type: 'string', value: 'N', description: 'at most N entries (default 100)' },
    json: { type: 'boolean', description: 'print a JSON array instead of lines' },
  },
  async run({ name, io, values, config, container }) {
    const text = (option: string) => values[option] as string | undefined;
    const person = text('person');
    const since = text('since');
    const limit = text('limit');
    const entries = await container.get(ReadAuditLog).execute({
      personId: person === undefined ? undefined : parsePositiveInteger(person, '--person', name),
      since: since === undefined ? undefined : parseSince(since, config.directoryTimezone, name),
      limit: limit === undefined ? undefined : parsePositiveInteger(limit, '--limit', name),
    });
    printList(io.stdout, entries, values.json === true, {
      json: auditEntryView,
      none: 'no audit entries',
      text: (listed) => listed.map(describe).join('\n'),
    });
  },
});

function describe(entry: AuditEntry): string {
  const actor =
    entry.actorAccountId === null
      ? 'cli'
      : `account ${entry.actorAccountId}${entry.actorKeyId === null ? '' : ` (key ${entry.actorKeyId})`}`;
  const value = (v: string | null) => (v === null ? '-' : JSON.stringify(v));
  const change =
    entry.field === null ? '' : `  ${entry.field}: ${value(entry.oldValue)} -> ${value(entry.newValue)}`;
  return `${entry.at.toISOString()}  ${actor}  ${entry.action}  ${entry.subjectType} ${entry.subjectId}${change}`;
}
