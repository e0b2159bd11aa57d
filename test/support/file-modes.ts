import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every entry under the directory that group or others may read, write or enter, with its mode. */
export function openToOthers(directory: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(directory)) {
    const entry = join(directory, name);
    const stat = lstatSync(entry);
    if (stat.isSymbolicLink()) continue;
    if ((stat.mode & 0o077) !== 0) found.push(`${(stat.mode & 0o777).toString(8)} ${entry}`);
    if (stat.isDirectory()) found.push(...openToOthers(entry));
  }
  return found;
}
