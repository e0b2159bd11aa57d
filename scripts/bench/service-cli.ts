import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paths } from './paths';
import { runNode } from './processes';

/** How long a command took (with node's start-up) and the most memory it held at once. */
export interface CliRun {
  seconds: number;
  peakRssBytes: number;
  stdout: string;
}

/** The service's own command-line tool, run exactly as `npm run cli -- <command>` runs it. */
export class ServiceCli {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  migrate() {
    return runNode(paths.cliMain, ['migrate'], this.env);
  }

  /** Runs a command, measuring its time and its peak resident memory. */
  async measured(args: string[]): Promise<CliRun> {
    const directory = mkdtempSync(join(tmpdir(), 'bench-rss-'));
    const file = join(directory, 'peak');
    try {
      const { seconds, stdout } = await runNode(
        paths.cliMain,
        args,
        { ...this.env, BENCH_PEAK_RSS_FILE: file },
        undefined,
        ['--require', paths.peakRss],
      );
      return { seconds, peakRssBytes: Number(readFileSync(file, 'utf8')), stdout };
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }

  /** Imports the file; the time includes node's start-up, as a user of the CLI would see it. */
  import(file: string, ...options: string[]): Promise<CliRun> {
    return this.measured(['import', file, ...options]);
  }

  export(file: string) {
    return runNode(paths.cliMain, ['export', file], this.env);
  }

  /** Without a person named, the CLI makes an admin-role account: hidden from people results. */
  async createAccount(account: { username: string; password: string; permissions: string[] }) {
    const args = [
      'accounts',
      'create',
      '--username',
      account.username,
      '--permissions',
      account.permissions.join(','),
      '--password-env',
      'BENCH_PASSWORD',
    ];
    await runNode(paths.cliMain, args, { ...this.env, BENCH_PASSWORD: account.password });
  }
}
