import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvLine } from '../../src/person-file/csv-line';
import { SHEET_COLUMNS } from '../../src/person-file/sheet-rows';
import { BenchDatabase } from './bench-database';
import { generateDirectory, type ImportRecord } from './generate-directory';
import { type CliRun, ServiceCli } from './service-cli';

/**
 * `npm run bench -- csv-import [--people N] [--pglite]`: the same members imported into an empty
 * directory once from a JSON file and once from the spreadsheet of SPEC §9 (target: the CSV import
 * within 1.5 times the JSON import). Both files hold the same people: members only (a spreadsheet
 * holds no admins), each with a member number (which ties a person's rows together) and their
 * first contact of each kind (a spreadsheet's email, phone and address columns). Each import runs
 * the built command-line tool on a fresh database: PostgreSQL (created on BENCH_POSTGRES_URL, as
 * for the main run) or, with --pglite, an embedded one.
 */

const TARGET_RATIO = 1.5;

function log(message: string) {
  process.stderr.write(`[bench csv-import ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

interface Options {
  people: number;
  pglite: boolean;
}

function parse(argv: string[]): Options {
  const options: Options = { people: 100_000, pglite: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--people') {
      options.people = Number(argv[++i]);
      if (!Number.isInteger(options.people) || options.people <= 0) {
        throw new Error('--people needs a positive whole number');
      }
    } else if (argv[i] === '--pglite') options.pglite = true;
    else throw new Error(`csv-import: unknown option ${argv[i]} (--people N, --pglite)`);
  }
  return options;
}

type Member = Omit<ImportRecord, 'role'> & { member_number: string };

/** The generated people a spreadsheet can hold: members, a member number each, a contact of each kind. */
function members(records: ImportRecord[]): Member[] {
  return records
    .filter((record) => record.role === 'member')
    .map(({ role: _role, ...record }, index) => ({
      member_number: `M-${index + 1}`,
      ...record,
      contacts: (['email', 'phone', 'address'] as const).flatMap((kind) => {
        const first = record.contacts.find((c) => c.kind === kind);
        return first === undefined ? [] : [{ ...first, label: null }];
      }),
    }));
}

function csvOf(people: Member[]): string {
  // Spelled as the service's own export spells CSV.
  const rows: string[] = [csvLine(SHEET_COLUMNS)];
  for (const person of people) {
    const contact = (kind: string) => person.contacts.find((c) => c.kind === kind)?.value ?? '';
    const own = [
      '',
      person.member_number,
      person.first_name,
      person.last_name,
      contact('email'),
      contact('phone'),
      contact('address'),
      person.chat_id ?? '',
      person.planner_id ?? '',
    ];
    const memberships = person.memberships.length === 0 ? [null] : person.memberships;
    for (const m of memberships) {
      rows.push(csvLine([...own, m?.club ?? '', m?.kind ?? '', m?.start_date ?? '', m?.end_date ?? '']));
    }
  }
  return rows.join('');
}

/** Imports the file into a fresh database and checks that every person was added. */
async function importInto(options: Options, workDir: string, file: string, people: number): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', DIRECTORY_TIMEZONE: 'UTC' };
  delete env.REDIS_URL;
  let database: BenchDatabase | null = null;
  const dataDir = join(workDir, `data-${Date.now()}`);
  if (options.pglite) {
    delete env.DATABASE_URL;
    env.DATA_DIR = dataDir;
  } else {
    database = await BenchDatabase.prepare(process.env);
    env.DATABASE_URL = database.url;
  }
  try {
    const cli = new ServiceCli(env);
    await cli.migrate();
    const run = await cli.import(file);
    if (!run.stdout.includes(`: ${people} added, 0 updated`)) {
      throw new Error(`the import of ${file} did not add ${people} people: ${run.stdout.trim()}`);
    }
    return run;
  } finally {
    if (database !== null) log(await database.cleanUp());
    await rm(dataDir, { recursive: true, force: true });
    // BenchDatabase names a database by the second it was made in: the next one is another.
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
}

export async function csvImportBench(argv: string[]): Promise<void> {
  const options = parse(argv);
  const workDir = await mkdtemp(join(tmpdir(), 'bench-csv-'));
  try {
    log(`generating ${options.people} people…`);
    const generated = await generateDirectory(join(workDir, 'generated.json'), options.people);
    const people = members(JSON.parse(await readFile(generated.file, 'utf8')) as ImportRecord[]);
    const jsonFile = join(workDir, 'members.json');
    const csvFile = join(workDir, 'members.csv');
    await writeFile(jsonFile, JSON.stringify(people));
    await writeFile(csvFile, csvOf(people));
    const rows = people.reduce((sum, p) => sum + Math.max(1, p.memberships.length), 0);
    log(`${people.length} members, ${rows} spreadsheet rows; ${options.pglite ? 'PGlite' : 'PostgreSQL'}`);
    log('JSON import…');
    const json = await importInto(options, workDir, jsonFile, people.length);
    log(`JSON import: ${json.seconds.toFixed(1)} s`);
    log('CSV import…');
    const csv = await importInto(options, workDir, csvFile, people.length);
    log(`CSV import: ${csv.seconds.toFixed(1)} s`);
    const ratio = csv.seconds / json.seconds;
    const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
    process.stdout.write(
      [
        `CSV import against JSON import, ${people.length} members into an empty directory (${options.pglite ? 'PGlite' : 'PostgreSQL'})`,
        '| file | seconds | peak RSS |',
        '|---|---|---|',
        `| JSON | ${json.seconds.toFixed(1)} | ${mib(json.peakRssBytes)} |`,
        `| CSV | ${csv.seconds.toFixed(1)} | ${mib(csv.peakRssBytes)} |`,
        `CSV / JSON: ${ratio.toFixed(2)} (target at most ${TARGET_RATIO}): ${ratio <= TARGET_RATIO ? 'met' : 'NOT MET'}`,
        '',
      ].join('\n'),
    );
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
