import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDesk } from '../../scripts/desk/build-desk';
import { DESK_PAGE, deskDirectory } from '../../src/http/desk-files';
import { PGLITE_SNAPSHOT_VARIABLE, RUN_BUILD_VARIABLE, RUN_DATA_VARIABLE } from './run-variables';

/**
 * Names the places of what the run makes once and shares (test/support/pglite-snapshot.ts and
 * run-artifacts.ts): the first test file that needs each makes it there. Workers inherit the
 * variables.
 */
export default async function globalSetup(): Promise<void> {
  // The secretary's page, which the app serves at /desk, from a fresh clone too (npm ci && npm
  // test, no build before): made when missing. The /desk browser test rebuilds it from the sources.
  if (!existsSync(join(deskDirectory(), DESK_PAGE))) {
    await buildDesk();
  }
  if (process.env[PGLITE_SNAPSHOT_VARIABLE]) return;
  const directory = mkdtempSync(join(tmpdir(), 'md-test-run-'));
  process.env[PGLITE_SNAPSHOT_VARIABLE] = join(directory, 'migrated.tar');
  process.env[RUN_DATA_VARIABLE] = join(directory, 'data-template');
  // Under the project, so that the compiled service finds node_modules.
  process.env[RUN_BUILD_VARIABLE] = join(__dirname, '../..', 'test-artifacts', `run-${process.pid}`);
}
