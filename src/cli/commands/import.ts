import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { ImportPeople } from '../../application/people/import-people';
import { InvalidInput } from '../../domain/errors';
import { refreshStatistics } from '../../infrastructure/persistence/database';
import { CliFailure } from '../cli-errors';
import type { Command } from '../command';
import { createProgress } from '../progress';
import { printLine } from '../write-text';
import { describeFileError } from './file-errors';

export const importCommand: Command = {
  path: ['import'],
  summary: 'import people from a JSON file, all or nothing',
  usage: 'FILE',
  description: [
    'Reads FILE, a JSON array of people, each:',
    '  {"first_name": "Ada", "last_name": "Byron", "chat_id": "123", "planner_id": null, "role": "member",',
    '   "contacts": [{"kind": "email", "value": "ada@example.org", "label": "home"}],',
    '   "memberships": [{"club": "Northfield", "kind": "full", "start_date": "2024-01-01", "end_date": null}]}',
    'first_name and last_name are required; role is member (default) or admin; contact kinds are',
    'email, phone, address; dates are YYYY-MM-DD and end_date (empty: open-ended) is not before',
    'start_date; a chat_id may be used once. Clubs are created by name when missing.',
    'Every record is checked first; if any is wrong, nothing is imported and each problem is',
    'shown with its record number (counted from 0). Otherwise all are written in one transaction.',
    'An `export` file imports as is.',
  ].join('\n'),
  options: {},
  positionals: [{ name: 'FILE' }],
  database: 'migrated',
  async run({ io, positionals: [file], container, database }) {
    const started = process.hrtime.bigint();
    const records = parseJson(await readText(file), file);
    const count = Array.isArray(records) ? records.length : 0;
    if (io.stderr.isTTY && count >= 5000) printLine(io.stderr, `checking ${count} records...`);

    // Beside the running service, the session is the service's, with the plans it cached while
    // the directory was small (after `demo`, say): the import's foreign-key checks would then
    // scan whole tables, 80 s instead of 3 s for 20,000 people. Fresh statistics make PostgreSQL
    // plan them again.
    if (database.servedBy !== undefined) await refreshStatistics(database, { vacuum: false });
    const progress = createProgress(io.stderr, count, 'importing');
    let result: Awaited<ReturnType<ImportPeople['execute']>>;
    try {
      result = await container.get(ImportPeople).execute({
        records,
        onProgress: (done, total) => progress.update(done, total),
      });
    } catch (error) {
      if (error instanceof InvalidInput) {
        const count = error.messages.length;
        const what = count === 1 ? '1 problem' : `${count} problems`;
        throw new CliFailure(`${what} in ${file}; nothing was imported`, error.messages);
      }
      throw error;
    } finally {
      progress.stop();
    }
    // Part of the import, so searches are fast at once rather than after autovacuum's next round
    // (PGlite has none).
    await refreshStatistics(database, { vacuum: true });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    printLine(
      io.stdout,
      `imported ${result.people} people with ${result.contacts} contacts and ${result.memberships} ` +
        `memberships in ${result.clubs} clubs, in ${seconds.toFixed(1)} s`,
    );
  },
};

async function readText(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new CliFailure(describeFileError(error, file, 'read'));
  }
  // Decoding would turn bytes that are not UTF-8 into U+FFFD and import changed names without a
  // word; SPEC §1 wants such text refused. The line tells the volunteer where to look.
  if (!isUtf8(bytes)) {
    throw new CliFailure(`${file} is not UTF-8 text (line ${firstLineNotUtf8(bytes)}); save it as UTF-8`);
  }
  return bytes.toString('utf8');
}

function firstLineNotUtf8(bytes: Buffer): number {
  let line = 1;
  let start = 0;
  for (let end = bytes.indexOf(0x0a); ; end = bytes.indexOf(0x0a, start)) {
    if (!isUtf8(bytes.subarray(start, end === -1 ? bytes.length : end))) return line;
    if (end === -1) return line;
    line += 1;
    start = end + 1;
  }
}

function parseJson(text: string, file: string): unknown {
  // A byte order mark, as some Windows editors write, is not part of the JSON.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new CliFailure(`${file} is not valid JSON: ${describeJsonError(error as Error, json)}`);
  }
}

/** The parser's message on one line, with the line and column when it gives a position. */
function describeJsonError(error: Error, text: string): string {
  const message = error.message.replace(/\s+/g, ' ').slice(0, 200);
  const position = /at position (\d+)/.exec(message);
  if (position === null) return message;
  const offset = Number(position[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `${message.replace(/ \(line \d+ column \d+\)/, '')} (line ${line}, column ${column})`;
}
