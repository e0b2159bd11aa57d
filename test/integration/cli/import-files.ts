import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let files = 0;
const directory = mkdtempSync(join(tmpdir(), 'cli-import-'));
// Each test file has its own copy of this module, and so its own directory, gone after its tests.
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Writes text (or a value as JSON) to a new temporary file and answers its path. */
export function tempFile(content: unknown, name = 'people.json'): string {
  files += 1;
  const path = join(directory, `${files}-${name}`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

export function tempPath(name: string): string {
  files += 1;
  return join(directory, `${files}-${name}`);
}

/** A realistic record: two contacts and a membership; `tag` keeps names and chat_ids unique. */
export function personRecord(tag: string, index: number, fields: Record<string, unknown> = {}) {
  return {
    first_name: `First${tag}x${index}`,
    last_name: `Last${tag}x${index}`,
    chat_id: index % 2 === 0 ? `chat-${tag}-${index}` : null,
    planner_id: index % 3 === 0 ? `planner-${index}` : null,
    role: 'member',
    contacts: [
      { kind: 'email', value: `person${index}.${tag}@example.org`, label: null },
      { kind: 'phone', value: `+44 7700 ${String(900000 + (index % 1000))}`, label: 'mobile' },
    ],
    memberships: [
      {
        club: `Club ${tag} ${index % 3}`,
        kind: 'full',
        start_date: '2020-01-01',
        end_date: index % 4 === 0 ? '2022-12-31' : null,
      },
    ],
    ...fields,
  };
}
