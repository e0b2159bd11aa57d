import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DESK_ASSETS, DESK_PAGE, deskDirectory } from '../../src/http/desk-files';
import { PGLITE_SNAPSHOT_VARIABLE, RUN_BUILD_VARIABLE, RUN_DATA_VARIABLE } from './run-variables';

/**
 * Names the places of what the run makes once and shares (test/support/pglite-snapshot.ts and
 * run-artifacts.ts): the first test file that needs each makes it there. Workers inherit the
 * variables.
 */
const ROOT = join(__dirname, '../..');

/** Modification times in ms of the files in `directory` named `names` (all when none), 0 for a missing one. */
function modified(directory: string, names?: readonly string[]): number[] {
  return (names ?? readdirSync(directory)).map((name) => {
    try {
      return statSync(join(directory, name)).mtimeMs;
    } catch {
      return 0;
    }
  });
}

/** The newest modification time in ms of any file below `directory`. */
function newest(directory: string): number {
  return Math.max(
    0,
    ...readdirSync(directory, { withFileTypes: true }).map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    }),
  );
}

/**
 * The secretary's page, which the app serves at /desk: built here, once for the run and before any
 * test file reads it, when it is missing (a fresh clone: npm ci && npm test) or older than its
 * sources (npm run build:desk, about half a second). Its sources are all of src/, not src/desk
 * alone: the bundle takes the domain's rules and the CSV writer from there too.
 */
function buildDeskWhenStale(): void {
  const built = Math.min(...modified(deskDirectory(), [DESK_PAGE, ...DESK_ASSETS]));
  if (built > newest(join(ROOT, 'src'))) return;
  const npm = process.env.npm_execpath;
  const args = ['run', '--silent', 'build:desk'];
  const run = npm
    ? spawnSync(process.execPath, [npm, ...args], { cwd: ROOT, encoding: 'utf8' })
    : spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0)
    throw new Error(`npm run build:desk failed: ${run.error?.message ?? ''}${run.stdout}${run.stderr}`);
}

export default function globalSetup(): void {
  buildDeskWhenStale();
  if (process.env[PGLITE_SNAPSHOT_VARIABLE]) return;
  const directory = mkdtempSync(join(tmpdir(), 'md-test-run-'));
  process.env[PGLITE_SNAPSHOT_VARIABLE] = join(directory, 'migrated.tar');
  process.env[RUN_DATA_VARIABLE] = join(directory, 'data-template');
  // Under the project, so that the compiled service finds node_modules.
  process.env[RUN_BUILD_VARIABLE] = join(__dirname, '../..', 'test-artifacts', `run-${process.pid}`);
}
