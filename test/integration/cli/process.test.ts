import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const MAIN = join(ROOT, 'dist/src/cli/main.js');

function run(args: string[], env: Record<string, string> = {}, input = '') {
  const result = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', BCRYPT_COST: '4', LOG_LEVEL: 'silent', ...env },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the built command-line tool, run as a process', () => {
  beforeAll(() => {
    // Compiled once for this file; errors in the compile are reported by the type-check, not here.
    spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(existsSync(MAIN)).toBe(true);
  }, 120_000);

  it('prints its help with exit 0, and refuses wrong usage with exit 2 and one line and a hint', () => {
    const help = run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run cli -- <command> \[options\]/);
    expect(run(['accounts', 'create', '--help']).stdout).toContain('--password-env VAR');

    expect(run(['accounts', 'create', '--frobnicate'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown option --frobnicate\nsee: npm run cli -- accounts create --help\n',
    });
    expect(run([]).code).toBe(2);
  });

  it('runs commands on an embedded database in DATA_DIR, failing with exit 1 and no stack trace', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-process-'));

    const created = run(
      ['accounts', 'create', '--username', 'ops', '--permissions', 'read'],
      { DATA_DIR: dataDir },
      'long password\n',
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^created the account "ops"/);

    const listed = run(['accounts', 'list'], { DATA_DIR: dataDir });
    expect(listed.stdout).toMatch(/^ops\s+admin\s+read\s+0\s+active/m);

    const missing = run(['import', 'no-such-file.json'], { DATA_DIR: dataDir });
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: cannot read no-such-file.json: no such file\n',
    });
  }, 60_000);

  it('reports a bad setting or an unreachable database in one line with exit 1', () => {
    expect(run(['accounts', 'list'], { BCRYPT_COST: 'lots' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: BCRYPT_COST must be a whole number from 4 to 20, not "lots"\n',
    });
    const unreachable = run(['accounts', 'list'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^error: the database cannot be reached[^\n]*\n$/);
  }, 60_000);
});
