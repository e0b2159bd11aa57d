import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase } from '../../src/infrastructure/persistence/database';
import { tightenDataDir } from '../../src/infrastructure/embedded/private-data-dir';
import { once } from './once';
import { migratedSnapshot } from './pglite-snapshot';
import { RUN_BUILD_VARIABLE, RUN_DATA_VARIABLE } from './run-variables';

/*
 * Things a test run makes once and every test file shares: the compiled service and a migrated
 * embedded DATA_DIR, where test/support/global-setup.ts says; without its variables (a Jest config
 * without the global setup) each file makes its own.
 */

const ROOT = join(__dirname, '../..');

function compile(outDir: string): void {
  const build = spawnSync(
    join(ROOT, 'node_modules/.bin/tsc'),
    ['-p', 'tsconfig.build.json', '--outDir', outDir, '--tsBuildInfoFile', join(outDir, '.tsbuildinfo')],
    { cwd: ROOT, encoding: 'utf8' },
  );
  // Type errors elsewhere in the tree still emit JavaScript; only a missing output is fatal here.
  if (!existsSync(join(outDir, 'src/main.js')))
    throw new Error(`the build produced no ${outDir}/src/main.js:\n${build.stdout}${build.stderr}`);
}

/**
 * Node's options for the processes tests start from the build (services, tools). With
 * `--liftoff-only`, V8 compiles PGlite's WebAssembly once, with its baseline compiler, and not the
 * hot functions again with its optimising one: a process that lives seconds never repays that
 * second compile (a service's start on a migrated DATA_DIR: 3.7-4.4 s of CPU, 2.5-2.6 s with it,
 * on Node 20; 4.5-5.8 s and 2.4-2.9 s on Node 24). The program is the same; the service users run
 * keeps the default, for it lives for weeks. docs/performance.md has the measurements.
 */
export const NODE_FLAGS = ['--liftoff-only'];

/**
 * The service compiled once for the run, under the git-ignored test-artifacts/ (so that
 * node_modules resolves), leaving dist/ to whoever else builds it. `name` names the file's own
 * build when there is no run directory.
 */
export async function serviceBuild(name: string): Promise<{ main: string; cli: string; remove: () => void }> {
  const shared = process.env[RUN_BUILD_VARIABLE];
  const outDir = shared ?? join(ROOT, 'test-artifacts', `${name}-${process.pid}`);
  if (shared) await once(outDir, compile);
  else compile(outDir);
  return {
    main: join(outDir, 'src/main.js'),
    cli: join(outDir, 'src/cli/main.js'),
    // The run's build is the global teardown's to remove.
    remove: () => (shared ? undefined : rmSync(outDir, { recursive: true, force: true })),
  };
}

/**
 * Fills the empty `directory` with a migrated embedded database, for tests about something other
 * than creating one: a copy of the run's template (PostgreSQL's initdb and the migrations run once
 * for the run; copying their files takes a few milliseconds).
 */
export async function copyMigratedDataDir(directory: string): Promise<void> {
  const shared = process.env[RUN_DATA_VARIABLE];
  if (shared === undefined) {
    const database = await openDatabase({ databaseUrl: null, dataDir: directory });
    await migrate(database).finally(() => database.close());
    return;
  }
  await once(shared, async (aside) => {
    const database = await openDatabase({
      databaseUrl: null,
      dataDir: aside,
      loadDataDir: await migratedSnapshot(),
    });
    await migrate(database).finally(() => database.close());
  });
  cpSync(shared, directory, { recursive: true });
  // Private, as the service leaves a DATA_DIR: node 24's cpSync gives the copy the shared one's
  // modes (PGlite writes files 0644), and the tool would then say that it tightened it.
  chmodSync(directory, 0o700);
  tightenDataDir(directory);
}

/** A new temporary DATA_DIR holding a migrated embedded database; the caller removes it. */
export async function migratedDataDir(prefix: string): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  await copyMigratedDataDir(directory);
  return directory;
}
