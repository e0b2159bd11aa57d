import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '../../../src/cli/commands';
import { loadConfig } from '../../../src/config';

/*
 * The systemd units of deploy/systemd (README: "Running it as a service"). No systemd runs the
 * tests, so they read the files: every program and file a unit names exists (in the repository,
 * or as the build makes it), the settings are the service's, and systemd itself finds nothing
 * wrong in them where systemd-analyze is installed.
 */

const ROOT = join(__dirname, '../../..');
const DIR = 'deploy/systemd';
const NODE = '/opt/node24/bin/node';
const CODE = '/opt/membership-directory';
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

type Unit = Record<string, [string, string][]>;

/** A unit file's sections, each with its key=value lines in order (comments and blanks left out). */
function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section = '';
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1];
      unit[section] = [];
    } else {
      const at = line.indexOf('=');
      unit[section].push([line.slice(0, at), line.slice(at + 1)]);
    }
  }
  return unit;
}

const files = readdirSync(join(ROOT, DIR)).sort();
const units = Object.fromEntries(files.map((name) => [name, parseUnit(read(`${DIR}/${name}`))]));
const values = (name: string, section: string, key: string) =>
  (units[name][section] ?? []).filter(([k]) => k === key).map(([, v]) => v);
const services = files.filter((name) => name.endsWith('.service'));

/** The repository file behind a path the unit names under the code's directory. */
function sourceOf(relative: string): string {
  return relative.startsWith('dist/') ? relative.replace(/^dist\//, '').replace(/\.js$/, '.ts') : relative;
}

describe('the systemd units in deploy/systemd', () => {
  it('are the service, the backup service and its timer', () => {
    expect(files).toEqual([
      'membership-directory-backup.service',
      'membership-directory-backup.timer',
      'membership-directory.service',
    ]);
  });

  it('run Node 24 from the path the README installs it to, and files the repository or its build has', () => {
    for (const name of services) {
      expect(values(name, 'Service', 'WorkingDirectory')).toEqual([CODE]);
      const commands = ['ExecStart', 'ExecStartPre', 'ExecStartPost'].flatMap((key) =>
        values(name, 'Service', key),
      );
      expect(commands.length).toBeGreaterThan(0);
      for (const command of commands) {
        for (const [, script] of command.matchAll(new RegExp(`${NODE} (\\S+)`, 'g'))) {
          expect([command, existsSync(join(ROOT, sourceOf(script)))]).toEqual([command, true]);
        }
        // Every program by its absolute path (systemd's rule), Node only from /opt/node24.
        const program = command.split(' ')[0];
        expect(program).toMatch(/^\//);
        expect(['/bin/sh', '/usr/bin/find', NODE]).toContain(program);
      }
    }
    expect(values('membership-directory.service', 'Service', 'ExecStart')).toEqual([
      `${NODE} dist/src/main.js`,
    ]);
    expect(read('README.md')).toContain(NODE);
  });

  it('return from `systemctl start` only once /readyz answers, within a bounded time', () => {
    const service = 'membership-directory.service';
    expect(values(service, 'Service', 'ExecStartPost')).toEqual([`${NODE} bin/wait-ready.js 60`]);
    const startLimit = Number(/^(\d+)$/.exec(values(service, 'Service', 'TimeoutStartSec')[0])?.[1]);
    expect(startLimit).toBeGreaterThan(60);
  });

  it('back up with the tool’s own backup command, into the service’s private state directory', () => {
    const backup = 'membership-directory-backup.service';
    const [start] = values(backup, 'Service', 'ExecStart');
    const [, command] = /dist\/src\/cli\/main\.js (\S+) /.exec(start) ?? [];
    expect(COMMANDS.map((c) => c.path.join(' '))).toContain(command);
    expect(start).toContain('/var/lib/membership-directory/backups/');
    expect(values(backup, 'Service', 'StateDirectory')).toEqual([
      'membership-directory membership-directory/backups',
    ]);
    expect(values(backup, 'Service', 'StateDirectoryMode')).toEqual(['0700']);
    expect(values(backup, 'Service', 'User')).toEqual(
      values('membership-directory.service', 'Service', 'User'),
    );
    // The timer starts the service of its own name.
    expect(values('membership-directory-backup.timer', 'Timer', 'OnCalendar')).toHaveLength(1);
  });

  it("read the service's settings from one environment file, and set only settings the service knows", () => {
    const known = new Set<string>(['NODE_ENV']);
    loadConfig(
      new Proxy({} as Record<string, string | undefined>, {
        get(_, name) {
          if (typeof name === 'string') known.add(name);
          return undefined;
        },
      }),
    );
    for (const name of services) {
      expect(values(name, 'Service', 'EnvironmentFile')).toEqual(['/etc/membership-directory.env']);
      for (const setting of values(name, 'Service', 'Environment')) {
        expect(known).toContain(setting.slice(0, setting.indexOf('=')));
      }
    }
  });

  it('are each pointed at by the README', () => {
    const readme = read('README.md');
    for (const name of files) expect(readme).toContain(`${DIR}/${name}`);
  });

  const analyze = spawnSync('systemd-analyze', ['--version']).error === undefined;
  (analyze ? it : it.skip)(
    'pass `systemd-analyze verify` (with this machine’s node in place of /opt/node24)',
    () => {
      const copy = mkdtempSync(join(tmpdir(), 'units-'));
      try {
        for (const name of files) {
          writeFileSync(join(copy, name), read(`${DIR}/${name}`).replaceAll(NODE, process.execPath));
        }
        const run = spawnSync('systemd-analyze', ['verify', ...files.map((name) => join(copy, name))], {
          encoding: 'utf8',
        });
        expect({ status: run.status, problems: `${run.stdout}${run.stderr}` }).toEqual({
          status: 0,
          problems: '',
        });
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    },
  );
});
