/*
 * What `npm start`, `npm run cli`, `npm run migrate` and the `membership-directory` command run:
 * the compiled service or tool from dist/, built first only when it must be.
 *
 *   node bin/launch.js service|cli [ARGS...]   run dist/src/main.js or dist/src/cli/main.js
 *   node bin/launch.js stamp                   record that dist/ matches the sources (postbuild)
 *
 * A production install builds once (`npm ci && npm run build`) and may then drop the development
 * dependencies (`npm ci --omit=dev`): every start runs dist/ as it is, with no compiler and no
 * compile. A fresh clone (`npm ci && npm start`) or a changed source builds first, when the
 * compiler is installed; without it the launcher says in one line what to run, and stops.
 *
 * Plain CommonJS, in the one process: it runs before anything is compiled, and the program it
 * loads gets the signals (SIGTERM) and the exit code itself.
 */
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const ROOT = join(__dirname, '..');

const ENTRIES = { service: 'dist/src/main.js', cli: 'dist/src/cli/main.js' };

/**
 * Everything `npm run build` reads: tsconfig.build.json's `include` and the compiler settings. A
 * build step added to `npm run build` adds its sources here (test/integration/cli/launcher.test.ts
 * checks that tsconfig.build.json's are).
 */
const BUILD_INPUTS = ['src', 'scripts', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json'];

/** Written by `npm run build`'s last step (postbuild), so it is newer than everything built. */
const STAMP = 'dist/.build-stamp.json';

const SELF = 'membership-directory';

/** The input files, relative, sorted: directories walked, dot-files (editors' swap files) left out. */
function inputFiles(root) {
  const files = [];
  const walk = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) if (!name.startsWith('.')) walk(join(path, name));
    } else if (stat.isFile()) files.push({ name: relative(root, path).split(sep).join('/'), stat });
  };
  for (const input of BUILD_INPUTS) walk(join(root, input));
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * How the build is made: its inputs and its command (package.json's `build`), so that a build step
 * added or changed also asks for a new build.
 */
function recipe(root) {
  let build = null;
  try {
    build = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts?.build ?? null;
  } catch {
    // No readable package.json: the inputs decide alone.
  }
  return `${JSON.stringify({ inputs: BUILD_INPUTS, build })}\n`;
}

/** Cheap (a few ms): names, sizes and modification times. Equal ones need no closer look. */
function listing(root, files) {
  const hash = createHash('sha256').update(recipe(root));
  for (const { name, stat } of files) hash.update(`${name}\0${stat.size}\0${stat.mtimeMs}\n`);
  return hash.digest('hex');
}

/** Exact: names and contents. Decides when the listing differs (a checkout touches unchanged files). */
function contents(root, files) {
  const hash = createHash('sha256').update(recipe(root));
  for (const { name } of files) {
    const content = readFileSync(join(root, name));
    hash.update(`${name}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}

function writeStamp(root) {
  const files = inputFiles(root);
  const stamp = { listing: listing(root, files), contents: contents(root, files) };
  writeFileSync(join(root, STAMP), `${JSON.stringify(stamp)}\n`);
}

/**
 * 'current'; 'missing' (no build); 'stale' (built from other sources, or by a build that did not
 * finish); 'no-sources' (an install of dist/ alone, such as the Docker image: run it as it is).
 */
function buildState(root, target) {
  if (!existsSync(join(root, ENTRIES[target]))) return 'missing';
  const files = inputFiles(root);
  if (files.length === 0) return 'no-sources';
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8'));
  } catch {
    return 'stale';
  }
  if (stamp.listing === listing(root, files) || stamp.contents === contents(root, files)) return 'current';
  return 'stale';
}

function hasCompiler(root) {
  return existsSync(join(root, 'node_modules', 'typescript', 'package.json'));
}

/** `npm run build`, its output on standard error: standard output may be an export being piped. */
function build(root) {
  const npm = process.env.npm_execpath;
  const args = ['run', '--silent', 'build'];
  const options = { cwd: root, stdio: ['ignore', 2, 2] };
  const run = npm
    ? spawnSync(process.execPath, [npm, ...args], options)
    : spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
        ...options,
        shell: process.platform === 'win32',
      });
  if (run.error) return { ok: false, reason: `could not run npm (${run.error.message})` };
  return run.status === 0 ? { ok: true } : { ok: false, reason: 'see the errors above' };
}

function fail(message) {
  process.stderr.write(`${SELF}: ${message}\n`);
  process.exit(1);
}

function launch(target, args, root = ROOT) {
  const state = buildState(root, target);
  if (state === 'missing' || state === 'stale') {
    const why =
      state === 'missing' ? 'dist/ holds no build yet' : 'the sources changed since dist/ was built';
    if (!hasCompiler(root)) {
      fail(
        `${why}, and TypeScript (a development dependency) is not installed to build it: run ` +
          '`npm ci && npm run build` (then `npm ci --omit=dev` may drop the development dependencies again)',
      );
    }
    process.stderr.write(`${SELF}: ${why}: building it (npm run build)\n`);
    const built = build(root);
    if (!built.ok) fail(`the build failed (${built.reason}); nothing was started`);
    if (!existsSync(join(root, ENTRIES[target]))) {
      fail(`the build made no ${ENTRIES[target]}: remove dist/ and run \`npm run build\` again`);
    }
  }
  const entry = join(root, ENTRIES[target]);
  // The program reads its arguments from process.argv, as if started as `node ENTRY ARGS...`.
  process.argv.splice(1, process.argv.length - 1, entry, ...args);
  require(entry);
}

module.exports = { BUILD_INPUTS, ENTRIES, STAMP, buildState, launch, writeStamp };

if (require.main === module) {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'stamp') writeStamp(ROOT);
  else if (command in ENTRIES) launch(command, args);
  else fail(`usage: node bin/launch.js service|cli [ARGS...] | stamp (not ${JSON.stringify(command ?? '')})`);
}
