import { spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/*
 * bin/launch.js, what `npm start`, `npm run cli`, `npm run migrate` and `membership-directory` run
 * (SPEC §5, production): dist/ as it is when it matches the sources, with no compiler and no
 * compile; a build first when it does not and the compiler is there; one line saying what to run
 * when it is not. Each test runs the real launcher in a small project of its own, whose "build"
 * writes stand-in programs, without TypeScript in node_modules unless the test installs a stand-in.
 */

const ROOT = join(__dirname, '../../..');
const launcher = require(join(ROOT, 'bin/launch.js')) as {
  BUILD_INPUTS: string[];
  ENTRIES: Record<string, string>;
};

/** A stand-in for each compiled entry point: says who it is and what it got, exits 3. */
function program(name: string): string {
  return `process.stdout.write(JSON.stringify({ program: '${name}', args: process.argv.slice(2) }) + '\\n');
process.exitCode = 3;
`;
}

const BUILD = `// The project's build, standing in for tsc: it says so on its standard output, then writes dist/.
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
if (readFileSync('src/main.ts', 'utf8').includes('broken')) {
  process.stdout.write('src/main.ts(1,1): error TS1005: broken\\n');
  process.exit(2);
}
console.log('compiling');
mkdirSync('dist/src/cli', { recursive: true });
writeFileSync('dist/src/main.js', ${JSON.stringify(program('service'))});
writeFileSync('dist/src/cli/main.js', ${JSON.stringify(program('cli'))});
`;

let project: string;

function write(path: string, content: string): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), content);
}

/** A copy of the project's launcher and scripts, around stand-in sources and build. */
function newProject(): void {
  project = mkdtempSync(join(tmpdir(), 'launcher-'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  write(
    'package.json',
    JSON.stringify({
      name: 'launcher-test',
      private: true,
      bin: pkg.bin,
      scripts: { ...pkg.scripts, build: 'node build.js' },
    }),
  );
  for (const file of ['bin/launch.js', 'bin/membership-directory.js']) {
    write(file, readFileSync(join(ROOT, file), 'utf8'));
    chmodSync(join(project, file), statSync(join(ROOT, file)).mode);
  }
  write('build.js', BUILD);
  write('tsconfig.json', '{}\n');
  write('tsconfig.build.json', '{}\n');
  write('src/main.ts', 'export {};\n');
  write('src/cli/main.ts', 'export {};\n');
}

/** Installs a stand-in TypeScript: the launcher only looks for its package. */
function installCompiler(): void {
  write('node_modules/typescript/package.json', '{"name":"typescript","version":"0.0.0"}\n');
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in the project to its end, within 60 s, with npm's own variables cleared. */
function run(command: string, args: string[], cwd = project): Promise<Run> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const launch = (...args: string[]) => run(process.execPath, [join(project, 'bin/launch.js'), ...args]);

/** Builds as `npm ci && npm run build` would (the build, then its postbuild stamp). */
async function build(): Promise<void> {
  expect((await run(process.execPath, ['build.js'])).code).toBe(0);
  expect((await launch('stamp')).code).toBe(0);
}

const output = (program: string, args: string[]) => `${JSON.stringify({ program, args })}\n`;

describe('the launcher (npm start, npm run cli, npm run migrate, membership-directory)', () => {
  beforeEach(newProject);
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  describe('without the compiler (npm ci --omit=dev)', () => {
    it('runs a build that matches the sources, with its arguments and exit code, compiling nothing', async () => {
      await build();
      rmSync(join(project, 'build.js'));

      expect(await launch('service')).toEqual({ code: 3, stdout: output('service', []), stderr: '' });
      expect(await launch('cli', 'export', '--json', 'a b')).toEqual({
        code: 3,
        stdout: output('cli', ['export', '--json', 'a b']),
        stderr: '',
      });
    }, 60_000);

    it('membership-directory runs the tool in the project folder, FILE arguments meaning where the user is', async () => {
      await build();
      write(
        'dist/src/cli/main.js',
        'console.log(JSON.stringify([process.cwd(), process.env.INIT_CWD, process.env.npm_lifecycle_event]));',
      );
      mkdirSync(join(project, 'elsewhere'));

      const result = await run(
        join(project, 'bin/membership-directory.js'),
        ['export', 'x.json'],
        join(project, 'elsewhere'),
      );
      expect(result).toMatchObject({ code: 0, stderr: '' });
      // What `npm run cli` gives the tool too (src/cli/caller-directory.ts reads it).
      expect(JSON.parse(result.stdout)).toEqual([project, join(project, 'elsewhere'), 'cli']);
    }, 60_000);

    it('runs the build when sources were only touched (a checkout), not changed', async () => {
      await build();
      const later = new Date(Date.now() + 60_000);
      utimesSync(join(project, 'src/main.ts'), later, later);

      expect(await launch('service')).toMatchObject({ code: 3, stderr: '' });
    }, 60_000);

    it('says in one line what to run when there is no build, and starts nothing', async () => {
      for (const target of ['service', 'cli']) {
        expect(await launch(target)).toEqual({
          code: 1,
          stdout: '',
          stderr:
            'membership-directory: dist/ holds no build yet, and TypeScript (a development dependency) is not ' +
            'installed to build it: run `npm ci && npm run build` (then `npm ci --omit=dev` may drop the ' +
            'development dependencies again)\n',
        });
      }
    }, 60_000);

    it('says so in one line when a source changed, was added or was removed, or the build command changed', async () => {
      for (const change of [
        () => write('src/main.ts', 'export const changed = 1;\n'),
        () => write('src/new.ts', 'export {};\n'),
        () => rmSync(join(project, 'src/cli/main.ts')),
        () => write('tsconfig.build.json', '{ "compilerOptions": {} }\n'),
        // A build step added to `npm run build`.
        () => {
          const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
          pkg.scripts.build += ' && node bundle-page.js';
          write('package.json', JSON.stringify(pkg));
        },
      ]) {
        newProject();
        await build();
        change();
        const result = await launch('cli', 'migrate');
        expect(result).toMatchObject({ code: 1, stdout: '' });
        expect(result.stderr).toMatch(
          /^membership-directory: the sources changed since dist\/ was built, and TypeScript .* run `npm ci && npm run build`[^\n]*\n$/,
        );
      }
    }, 60_000);

    it('runs an install of dist/ without its sources (the Docker image) as it is', async () => {
      await build();
      for (const path of ['src', 'tsconfig.json', 'tsconfig.build.json'])
        rmSync(join(project, path), { recursive: true });

      expect(await launch('service')).toMatchObject({ code: 3, stdout: output('service', []) });
    }, 60_000);
  });

  describe('with the compiler (a fresh clone after npm ci)', () => {
    beforeEach(installCompiler);

    it("builds first when there is no build, the build's output on standard error, then runs", async () => {
      const result = await run(join(project, 'bin/membership-directory.js'), ['export']);

      // Standard output holds the program's output alone: an export piped to a file stays clean.
      expect(result).toMatchObject({ code: 3, stdout: output('cli', ['export']) });
      expect(result.stderr).toBe(
        'membership-directory: dist/ holds no build yet: building it (npm run build)\ncompiling\n',
      );
      // The build's last step stamped it: the next start runs at once.
      expect(await launch('cli', 'export')).toEqual({
        code: 3,
        stdout: output('cli', ['export']),
        stderr: '',
      });
    }, 60_000);

    it('builds again once a source changed', async () => {
      await build();
      write('src/main.ts', 'export const changed = 2;\n');

      const result = await launch('service');
      expect(result).toMatchObject({ code: 3, stdout: output('service', []) });
      expect(result.stderr).toContain('the sources changed since dist/ was built: building it');
    }, 60_000);

    it("starts nothing when the build fails, and says so after the compiler's errors", async () => {
      await build();
      write('src/main.ts', 'broken\n');

      expect(await launch('service')).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'membership-directory: the sources changed since dist/ was built: building it (npm run build)\n' +
          'src/main.ts(1,1): error TS1005: broken\n' +
          'membership-directory: the build failed (see the errors above); nothing was started\n',
      });
    }, 60_000);
  });
});

describe("the project's launcher settings", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

  it('start, cli and migrate go through the launcher, and the build ends by stamping dist/', () => {
    expect(pkg.scripts).toMatchObject({
      start: 'node bin/launch.js service',
      cli: 'node bin/launch.js cli',
      migrate: 'node bin/launch.js cli migrate',
      postbuild: 'node bin/launch.js stamp',
    });
    expect(launcher.ENTRIES).toEqual({ service: 'dist/src/main.js', cli: 'dist/src/cli/main.js' });
  });

  it('the staleness check covers everything the build compiles', () => {
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8'));
    for (const input of [...build.include, 'tsconfig.json', 'tsconfig.build.json']) {
      expect(launcher.BUILD_INPUTS).toContain(input);
    }
  });

  it('membership-directory is an executable command of the package', () => {
    expect(pkg.bin).toEqual({ 'membership-directory': 'bin/membership-directory.js' });
    const file = join(ROOT, pkg.bin['membership-directory']);
    expect(readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(file).mode & 0o111).toBe(0o111);
  });
});
