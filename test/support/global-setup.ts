import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGLITE_SNAPSHOT_VARIABLE, RUN_BUILD_VARIABLE, RUN_DATA_VARIABLE } from './run-variables';

/**
 * Names the places of what the run makes once and shares (test/support/pglite-snapshot.ts and
 * run-artifacts.ts): the first test file that needs each makes it there. Workers inherit the
 * variables.
 */
export default function globalSetup(): void {
  if (process.env[PGLITE_SNAPSHOT_VARIABLE]) return;
  const directory = mkdtempSync(join(tmpdir(), 'md-test-run-'));
  process.env[PGLITE_SNAPSHOT_VARIABLE] = join(directory, 'migrated.tar');
  process.env[RUN_DATA_VARIABLE] = join(directory, 'data-template');
  // Under the project, so that the compiled service finds node_modules.
  process.env[RUN_BUILD_VARIABLE] = join(__dirname, '../..', 'test-artifacts', `run-${process.pid}`);
}
