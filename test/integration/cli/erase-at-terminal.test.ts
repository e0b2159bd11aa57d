import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migratedDataDir, NODE_FLAGS, serviceBuild } from '../../support/run-artifacts';

const ROOT = join(__dirname, '../../..');
// util-linux's script runs a command on a pseudo-terminal and relays what is piped to it as typing.
const hasScript = spawnSync('script', ['--version']).status === 0;

/** A word the shell passes as it is. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * `people erase` at a real terminal (SPEC §9): the built tool on a pseudo-terminal, as a secretary
 * runs it, and the same tool with standard input from a pipe.
 */
(hasScript ? describe : describe.skip)('people erase at a terminal, the built tool', () => {
  let build: Awaited<ReturnType<typeof serviceBuild>>;
  let dataDir: string;
  const env = () => ({ PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', TERM: 'dumb' });

  /** The tool with standard input, output and error on a pseudo-terminal, `typed` typed into it. */
  function atTerminal(args: string[], typed: string) {
    const command = [process.execPath, ...NODE_FLAGS, build.cli, ...args].map(quote).join(' ');
    const result = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      input: typed,
      encoding: 'utf8',
      env: env(),
      timeout: 60_000,
    });
    return { code: result.status, output: result.stdout.replace(/\r\n/g, '\n') };
  }

  /** The tool with standard input from a pipe. */
  function piped(args: string[], input = '') {
    const result = spawnSync(process.execPath, [...NODE_FLAGS, build.cli, ...args], {
      cwd: ROOT,
      input,
      encoding: 'utf8',
      env: env(),
      timeout: 60_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  beforeAll(async () => {
    build = await serviceBuild('erase-at-terminal');
    dataDir = await migratedDataDir('erase-at-terminal-');
    const roster = join(dataDir, '..', `${process.pid}-roster.json`);
    writeFileSync(
      roster,
      JSON.stringify([
        {
          first_name: 'Cecilia',
          last_name: 'Payne',
          member_number: 'NA-2004',
          contacts: [{ kind: 'email', value: 'cecilia@example.org', label: null }],
        },
        { first_name: 'Annie', last_name: 'Cannon', member_number: 'NA-1863' },
      ]),
    );
    expect(piped(['import', roster]).code).toBe(0);
    rmSync(roster);
  }, 180_000);

  afterAll(() => {
    build?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const idOf = (memberNumber: string) => {
    const found = piped(['people', 'find', memberNumber]);
    return Number(found.stdout.split('\n')[1].split(/\s+/)[0]);
  };

  it('without a terminal, refuses in one line unless --yes', () => {
    const id = idOf('NA-1863');
    const refused = piped(['people', 'erase', String(id)], 'NA-1863\n');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    // After the line saying which database the tool opened, one line.
    expect(refused.stderr.replace(/^using the embedded database in .*\n/, '')).toBe(
      `error: standard input is not a terminal, so erasing cannot be confirmed here: give --yes to erase person ${id}\n`,
    );
  });

  it('cancels when what is typed back is not their member number', () => {
    const id = idOf('NA-2004');
    const { code, output } = atTerminal(['people', 'erase', String(id)], 'NA-1863\n');
    expect(code).toBe(1);
    expect(output).toMatch(
      new RegExp(`^${id}\\s+NA-2004\\s+Cecilia\\s+Payne\\s+cecilia@example.org\\s+no\\s+none$`, 'm'),
    );
    // The terminal echoes what is typed as it arrives, here before the question was asked.
    expect(output).toContain('To confirm, type their member number (NA-2004): ');
    expect(output).toContain('error: cancelled: that is not their member number; nobody was erased');
    expect(piped(['people', 'find', 'NA-2004']).stdout).toContain('Cecilia');
  });

  it('shows who, asks, and erases when their member number is typed back', () => {
    const id = idOf('NA-2004');
    const { code, output } = atTerminal(['people', 'erase', '--member-number', 'NA-2004'], 'NA-2004\n');
    expect(output).toContain('This erases, and it cannot be undone:');
    expect(output).toContain(`erased member NA-2004 (person ${id})`);
    expect(code).toBe(0);
    expect(piped(['people', 'find', 'Cecilia']).stdout).toBe('nobody found for "Cecilia"\n');
  });
});
