import type { FieldChange } from '../../application/people/person-diff';
import {
  ImportPeople,
  type ImportPeopleOutput,
  type PlannedChange,
} from '../../application/people/import-people';
import { InvalidInput } from '../../domain/errors';
import { peopleFrom } from '../../person-file/people-from';
import { UnreadableInput } from '../../person-file/read-json-array';
import { fileSource } from '../file-source';
import { refreshStatistics } from '../../infrastructure/persistence/database';
import { CliFailure } from '../cli-errors';
import type { CliOutput } from '../cli-io';
import { defineCommand } from '../command';
import { createProgress } from '../progress';
import { printLine, writeText } from '../write-text';

/** Changes from which an import refreshes the statistics, when they are a tenth of the file or more. */
const REFRESH_AFTER = 1000;

export const importCommand = defineCommand({
  path: ['import'],
  summary: 'bring the directory up to date from a JSON, CSV or XLSX file, all or nothing',
  description: [
    'Reads FILE, a JSON array of people (the format `export` writes), each:',
    '  {"id": 12, "member_number": "M-1815", "first_name": "Ada", "last_name": "Byron",',
    '   "chat_id": "123", "planner_id": null, "role": "member",',
    '   "contacts": [{"kind": "email", "value": "ada@example.org", "label": "home"}],',
    '   "memberships": [{"club": "Northfield", "kind": "full", "start_date": "2024-01-01", "end_date": null}]}',
    'or a spreadsheet saved as CSV (`export --format csv` writes one), with a header row naming',
    'its columns: id, member_number, first_name, last_name, email, phone, address, chat_id,',
    'planner_id, club, kind, start_date, end_date (any of them, in any order; `,` or `;`; UTF-8,',
    'with or without a byte order mark). One row per membership: rows with the same member_number',
    '(or id) are one person and must agree; email, phone and address are the first contact of',
    'that kind (an empty cell removes it; the others are not touched); club, kind, start_date and',
    'end_date come together. An Excel workbook (.xlsx, `export --format xlsx` writes one) is',
    'read the same way from its first sheet: a date cell is that day, a date written as text must',
    'be YYYY-MM-DD. A file ending .csv is CSV, .json JSON, .xlsx XLSX; otherwise XLSX if it is a',
    'zip file, JSON if it begins with [ (or {), else CSV.',
    "A record whose id (the directory's, as `export` writes it) or member_number names a person",
    'updates the fields it carries: a field (or column) it leaves out is kept as it is, null (an',
    'empty cell) clears it, and contacts and memberships, when present, are the whole list',
    '(unchanged ones keep their ids). A record naming nobody adds a person (first_name and',
    'last_name required); an id the directory does not have is an error. A person added who shares',
    'an email, or both names, with a member is listed as a possible duplicate (and added).',
    'role is member (default) or admin (JSON only); contact kinds are email, phone, address; dates',
    'are YYYY-MM-DD and end_date (empty: open-ended) is not before start_date; a chat_id or',
    'member_number may be used once. Clubs are created by name. One record may take at most',
    '1 MiB of the file.',
    'FILE is read once (a pipe will do). Every record is checked first; if any is wrong, nothing is',
    'written and each problem is shown with its record (counted from 0) or row (the header being',
    'row 1). Otherwise everything is written in one transaction and audited as made by the command',
    'line (cli). The summary counts the people added, updated, unchanged and erased.',
  ].join('\n'),
  options: {
    'dry-run': {
      type: 'boolean',
      description:
        "check, and print the summary and each person's changes (field: old -> new); write nothing",
    },
    'remove-missing': {
      type: 'boolean',
      description: 'erase every member no record names (people holding an account are listed, not erased)',
    },
  },
  positionals: [{ name: 'FILE' }],
  async run({ io, values, positionals: [file], container, database }) {
    const started = process.hrtime.bigint();
    const dryRun = values['dry-run'] === true;
    // Beside the running service, the session is the service's, with the plans it cached while
    // the directory was small (after `demo`, say): the import's foreign-key checks would then
    // scan whole tables, 80 s instead of 3 s for 20,000 people. Fresh statistics make PostgreSQL
    // plan them again.
    if (database.servedBy !== undefined && !dryRun) await refreshStatistics(database, { vacuum: false });
    let progress: ReturnType<typeof createProgress> | undefined;
    let result: ImportPeopleOutput;
    try {
      result = await container.get(ImportPeople).execute({
        records: await peopleFrom(fileSource(file), { extension: extensionOf(file) }),
        dryRun,
        removeMissing: values['remove-missing'] === true,
        onChange: (change) => report(io.stdout, change, dryRun),
        onProgress: (done, total) => {
          if (progress === undefined) {
            if (io.stderr.isTTY && total >= 5000) printLine(io.stderr, `checked ${total} records`);
            progress = createProgress(io.stderr, total, dryRun ? 'comparing' : 'importing');
          }
          progress.update(done, total);
        },
      });
    } catch (error) {
      if (error instanceof UnreadableInput) throw new CliFailure(error.message);
      if (error instanceof InvalidInput) {
        const count = error.messages.length;
        const what = count === 1 ? '1 problem' : `${count} problems`;
        throw new CliFailure(`${what} in ${file}; nothing was imported`, error.messages);
      }
      throw error;
    } finally {
      progress?.stop();
    }
    const { added, updated, unchanged, erased, kept, possibleDuplicates } = result;
    const elapsed = () => (Number(process.hrtime.bigint() - started) / 1e9).toFixed(1);
    const keptNote =
      (kept > 0 ? `; ${kept} not named but kept, as they hold an account` : '') +
      (possibleDuplicates === 1
        ? '; 1 possible duplicate (listed above)'
        : possibleDuplicates > 1
          ? `; ${possibleDuplicates} possible duplicates (listed above)`
          : '');
    if (dryRun) {
      printLine(
        io.stdout,
        `dry run of ${file}: ${added} to add, ${updated} to update, ${unchanged} unchanged, ${erased} to erase` +
          `${keptNote}; nothing was written (${elapsed()} s)`,
      );
      return;
    }
    // Part of a large import, so searches are fast at once rather than after autovacuum's next
    // round (PGlite has none). Not after a weekly sync that changed a few people: the statistics
    // still hold, and vacuuming the whole directory would take longer than the sync itself.
    const changed = added + updated + erased;
    if (changed >= REFRESH_AFTER && changed * 10 >= added + updated + unchanged + erased) {
      await refreshStatistics(database, { vacuum: true });
    }
    printLine(
      io.stdout,
      `imported ${file}: ${added} added, ${updated} updated, ${unchanged} unchanged, ${erased} erased${keptNote}, in ${elapsed()} s`,
    );
  },
});

function describe(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

function describeChange({ field, old, new: value }: FieldChange): string {
  // Lists are JSON already.
  if (field === 'contacts' || field === 'memberships') return `${field}: ${old} -> ${value}`;
  return `${field}: ${describe(old)} -> ${describe(value)}`;
}

/** The file's extension, lower case, without its dot ("" for none). */
function extensionOf(file: string): string {
  const match = /\.([^./\\]+)$/.exec(file);
  return match === null ? '' : match[1].toLowerCase();
}

/**
 * A dry run shows every change; a real import only the members it kept for their account and the
 * possible duplicates it added.
 */
async function report(out: CliOutput, change: PlannedChange, dryRun: boolean): Promise<void> {
  if (change.kind === 'keep') {
    const { id, firstName, lastName } = change.person;
    await writeText(
      out,
      `kept person ${id} (${firstName} ${lastName}): no record names them, but they hold an account\n`,
    );
    return;
  }
  if (change.kind === 'duplicate') {
    await writeText(
      out,
      `${change.where}: possible duplicate of person ${change.personId} (${change.firstName} ${change.lastName}): ${change.reason}\n`,
    );
    return;
  }
  if (!dryRun) return;
  if (change.kind === 'add') {
    await writeText(out, `${change.where}: add ${change.firstName} ${change.lastName}\n`);
  } else if (change.kind === 'update') {
    const lines = change.changes.map(
      (c) => `${change.where}, person ${change.personId}: ${describeChange(c)}\n`,
    );
    await writeText(out, lines.join(''));
  } else {
    const { id, firstName, lastName } = change.person;
    await writeText(out, `erase person ${id} (${firstName} ${lastName}): no record names them\n`);
  }
}
