import { paths } from './paths';
import { runNode } from './processes';

/** The service's own command-line tool, run exactly as `npm run cli -- <command>` runs it. */
export class ServiceCli {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  migrate() {
    return runNode(paths.cliMain, ['migrate'], this.env);
  }

  /** Imports the file; the time includes node's start-up, as a user of the CLI would see it. */
  async import(file: string): Promise<number> {
    const { seconds } = await runNode(paths.cliMain, ['import', file], this.env);
    return seconds;
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
