import { auditEntryView } from '../../application/audit/audit-entry-view';
import { ReadAuditLog } from '../../application/audit/read-audit-log';
import type { AuditEntry } from '../../domain/audit-entry';
import type { Command } from '../command';
import { parsePositiveInteger, parseSince } from '../parse-values';
import { printLine } from '../write-text';

const NAME = 'audit';

export const auditCommand: Command = {
  path: ['audit'],
  summary: 'show the audit log, newest first',
  usage: '[--person N] [--since DATE] [--limit N] [--json]',
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
  positionals: [],
  database: 'migrated',
  async run({ io, values, config, container }) {
    const text = (name: string) => values[name] as string | undefined;
    const person = text('person');
    const since = text('since');
    const limit = text('limit');
    const entries = await container.get(ReadAuditLog).execute({
      personId: person === undefined ? undefined : parsePositiveInteger(person, '--person', NAME),
      since: since === undefined ? undefined : parseSince(since, config.directoryTimezone, NAME),
      limit: limit === undefined ? undefined : parsePositiveInteger(limit, '--limit', NAME),
    });
    if (values.json) {
      printLine(io.stdout, JSON.stringify(entries.map(auditEntryView), null, 2));
      return;
    }
    if (entries.length === 0) {
      printLine(io.stdout, 'no audit entries');
      return;
    }
    for (const entry of entries) printLine(io.stdout, describe(entry));
  },
};

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
