import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGLITE_SNAPSHOT_VARIABLE } from './pglite-snapshot';

/**
 * A directory of this run for the migrated PGlite snapshot, which the first test database of the
 * run writes there (test/support/pglite-snapshot.ts). Workers inherit the variable.
 */
export default function globalSetup(): void {
  if (process.env[PGLITE_SNAPSHOT_VARIABLE]) return;
  const directory = mkdtempSync(join(tmpdir(), 'md-test-pglite-'));
  process.env[PGLITE_SNAPSHOT_VARIABLE] = join(directory, 'migrated.tar');
}
