import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { CliRun, ServiceCli } from './service-cli';

export interface SyncFigures {
  /** The edited export: what the directory holds once the sync is done. */
  file: string;
  firstImport: CliRun;
  /** Records the edited export changes (1%). */
  changed: number;
  dryRun: CliRun;
  reimport: CliRun;
}

/**
 * The weekly workflow of SPEC §6 at scale: export what the first import made, change 1% of the
 * members (a name, a contact or a membership, in turn), run `import --dry-run` on the file, then
 * `import`. Admins are left alone (an import refuses to change them).
 */
export async function runSync(cli: ServiceCli, firstImport: CliRun, workFile: string): Promise<SyncFigures> {
  const exported = `${workFile}.export.json`;
  const edited = `${workFile}.edited.json`;
  await cli.export(exported);
  const changed = await changeOnePercent(exported, edited);
  const dryRun = await cli.import(edited, '--dry-run');
  const reimport = await cli.import(edited);
  for (const [name, run] of [
    ['dry run', dryRun],
    ['re-import', reimport],
  ] as const) {
    const summary = run.stdout.trim().split('\n').at(-1) ?? '';
    if (!summary.includes(`${changed} ${name === 'dry run' ? 'to update' : 'updated'}`)) {
      throw new Error(`the ${name} did not update the ${changed} people changed: ${summary}`);
    }
  }
  return { file: edited, firstImport, changed, dryRun, reimport };
}

/** Export files hold one record a line: edited line by line, never held whole. */
async function changeOnePercent(from: string, to: string): Promise<number> {
  const out = createWriteStream(to);
  let changed = 0;
  let index = 0;
  for await (const line of createInterface({ input: createReadStream(from), crlfDelay: Infinity })) {
    const trimmed = line.replace(/,$/, '');
    let text = line;
    if (trimmed.startsWith('{')) {
      const record = JSON.parse(trimmed);
      if (index % 100 === 7 && record.role === 'member') {
        const kind = changed % 3;
        if (kind === 0) record.last_name = `${record.last_name}-Sync`;
        else if (kind === 1)
          record.contacts.push({ kind: 'email', value: `sync${index}@example.org`, label: null });
        else
          record.memberships.push({
            club: 'Sync Club',
            kind: 'full',
            start_date: '2025-01-01',
            end_date: null,
          });
        changed += 1;
        text = JSON.stringify(record) + (line.endsWith(',') ? ',' : '');
      }
      index += 1;
    }
    if (!out.write(`${text}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return changed;
}
