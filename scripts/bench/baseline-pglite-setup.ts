import { readFileSync } from 'node:fs';
import { addBaselineAccount, type BenchAccount } from './baseline-accounts';
import { loadInto } from './baseline-load';
import { openBaselinePglite } from './baseline-pglite';
import { baselineSchema } from './baseline-schema';
import { BASELINE_SCHEMA } from './bench-database';

/**
 * Makes the embedded yardstick's database: node baseline-pglite-setup.js DIR FILE ACCOUNTS
 * [--keys-aside], where ACCOUNTS is a JSON file of `{ accounts: [{ account, token? }], bcryptCost }`.
 * Loads FILE as the PostgreSQL yardstick does (one transaction, unnest, indexes after; with
 * `--keys-aside` the foreign keys too), then ANALYZE (untimed, as the PostgreSQL run's VACUUM
 * ANALYZE), and prints `{"seconds": ...}`: the load's time.
 */
async function main() {
  const [dataDir, file, accountsFile, flag] = process.argv.slice(2);
  const { accounts, bcryptCost } = JSON.parse(readFileSync(accountsFile, 'utf8')) as {
    accounts: { account: BenchAccount; token?: string }[];
    bcryptCost: number;
  };
  const pglite = await openBaselinePglite(dataDir);
  try {
    await pglite.exec(baselineSchema(BASELINE_SCHEMA));
    const load = await loadInto(pglite, file, { keysAside: flag === '--keys-aside' });
    await pglite.exec('ANALYZE');
    const rows = {
      query: async <T>(text: string, values: unknown[] = []) => (await pglite.query<T>(text, values)).rows,
    };
    for (const { account, token } of accounts) await addBaselineAccount(rows, account, bcryptCost, token);
    process.stdout.write(`${JSON.stringify({ seconds: load.seconds })}\n`);
  } finally {
    await pglite.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
