import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config';
import { type Database, openDatabase } from '../../src/infrastructure/persistence/database';
import { testDatabases } from '../support/databases';

/*
 * Docker (SPEC §5): no password in a committed file, every setting passable, the service without
 * the bench. No Docker engine runs the tests, so they read the files: the settings config.ts reads,
 * the ones .env.example lists and the ones compose passes are held to each other.
 */

const ROOT = join(__dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every variable loadConfig reads, as it reads them, plus any named in config.ts the run missed. */
function settingsConfigReads(): string[] {
  const names = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_, name) {
      if (typeof name === 'string') names.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  // Also those read only when another is set: every env(...) helper call and env.NAME.
  for (const match of read('src/config.ts').matchAll(
    /\(env, '([A-Z][A-Z0-9_]*)'|\benv\.([A-Z][A-Z0-9_]*)/g,
  )) {
    names.add(match[1] ?? match[2]);
  }
  return [...names].sort();
}

function settingsEnvExampleLists(): string[] {
  return [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]).sort();
}

interface Compose {
  'x-database-password': string;
  services: Record<string, { environment?: Record<string, string>; ports?: string[] }>;
}

const compose = parse(read('docker/compose.yml')) as Compose;
const dockerfile = read('docker/Dockerfile');

describe('the settings', () => {
  it('config.ts reads are exactly the ones .env.example lists', () => {
    expect(settingsEnvExampleLists()).toEqual(settingsConfigReads());
  });

  it('compose passes every one of them to the service, from the environment or docker/.env', () => {
    const environment = compose.services.app.environment ?? {};
    for (const name of settingsEnvExampleLists()) {
      // ${NAME:-default}: the operator's value when set, compose's or the service's default otherwise.
      expect([name, environment[name]]).toEqual([
        name,
        expect.stringMatching(new RegExp(`^\\$\\{${name}:-`)),
      ]);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's interpolation, not JavaScript's
    expect(compose.services.app.ports).toEqual(['${PORT:-3000}:${PORT:-3000}']);
  });
});

describe('passwords', () => {
  const committed = execFileSync('git', ['ls-files', 'docker', '.env.example'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => path !== '');

  it('no committed Docker file or example holds one: no URL with a password, no PASSWORD set to a value', () => {
    expect(committed).toEqual(
      expect.arrayContaining(['docker/compose.yml', 'docker/Dockerfile', '.env.example']),
    );
    for (const path of committed) {
      const text = read(path);
      // user:secret@host, except the placeholder the example names.
      for (const [url] of text.matchAll(/[a-z]+:\/\/[^\s/@:]+:([^\s/@]+)@/g))
        expect(url).toMatch(/:PASSWORD@$/);
      for (const [, value] of text.matchAll(/(?<![{\w$])[A-Z_]*PASSWORD[A-Z_]*["']?\s*[:=]\s*(\S[^\n]*)/g)) {
        expect([path, value]).toEqual([
          path,
          expect.stringMatching(
            /^(\$\{POSTGRES_PASSWORD:\?.+\}|\*database-password|\$\(openssl rand -hex \d+\)\W.*)$/,
          ),
        ]);
      }
    }
  });

  it('compose takes the database password from the environment, and stops with a message when it is unset', () => {
    expect(compose['x-database-password']).toMatch(
      /^\$\{POSTGRES_PASSWORD:\?set POSTGRES_PASSWORD in the environment or in docker\/\.env .*\}$/,
    );
    const password = compose['x-database-password'];
    expect(compose.services.postgres.environment?.POSTGRES_PASSWORD).toBe(password);
    // Apart from the URL (PostgreSQL's PGPASSWORD): any character works, no escaping.
    for (const service of ['migrate', 'app']) {
      expect(compose.services[service].environment?.PGPASSWORD).toBe(password);
      expect(compose.services[service].environment?.DATABASE_URL).toMatch(
        /postgres:\/\/directory@postgres:5432\/directory/,
      );
    }
    // docker/.env, where the README puts it, is never committed.
    expect(execFileSync('git', ['check-ignore', 'docker/.env'], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe(
      'docker/.env',
    );
  });

  const postgres = testDatabases.find(({ name }) => name === 'postgres');
  (postgres === undefined ? it.skip : it)('a DATABASE_URL without one connects with PGPASSWORD', async () => {
    const url = new URL(postgres?.url as string);
    url.password = '';
    const before = process.env.PGPASSWORD;
    process.env.PGPASSWORD = 'p@ss/w:rd';
    let database: Database | undefined;
    try {
      database = await openDatabase({ databaseUrl: url.toString() });
      const pool = (
        database.dataSource.driver as unknown as {
          master: { connect(): Promise<{ password: string; release(): void }> };
        }
      ).master;
      const client = await pool.connect();
      expect(client.password).toBe('p@ss/w:rd');
      client.release();
    } finally {
      if (before === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = before;
      await database?.close();
    }
  });
});

describe('the image', () => {
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const [build, runtime] = stages;

  it("builds from the service's sources: every build input but the bench's, never scripts/", () => {
    const launcher = require(join(ROOT, 'bin/launch.js')) as { BUILD_INPUTS: string[] };
    for (const input of launcher.BUILD_INPUTS.filter(
      (name) => name !== 'scripts' && name !== 'ormconfig.ts',
    )) {
      expect(build).toMatch(new RegExp(`^COPY .*\\b${input.replace('.', '\\.')}\\b`, 'm'));
    }
    expect(build).toMatch(/^COPY bin \.\/bin$/m);
    expect(dockerfile).not.toMatch(/^COPY .*\bscripts\b/m);
    expect(read('docker/Dockerfile.dockerignore').split('\n')).toEqual(
      expect.arrayContaining(['scripts', 'test']),
    );
  });

  it('is healthy while /readyz answers 200, asked by node (the slim image has no curl)', async () => {
    const check = /^HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])$/m.exec(runtime)?.[1];
    const [program, flag, code] = JSON.parse(check ?? '[]') as string[];
    expect([program, flag]).toEqual(['node', '-e']);
    let status = 503;
    const server = createServer((req, res) => {
      res.statusCode = req.url === '/readyz' ? status : 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const env = { PATH: process.env.PATH ?? '', PORT: String((server.address() as AddressInfo).port) };
    const exitCode = () =>
      new Promise((resolve) =>
        execFile(process.execPath, [flag, code], { env }, (error) => resolve(error ? error.code : 0)),
      );
    try {
      expect(await exitCode()).toBe(1);
      status = 200;
      expect(await exitCode()).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('holds the compiled service and tool, not the bench: only dist/src of the build', () => {
    const fromBuild = [...runtime.matchAll(/^COPY --from=build (\S+)/gm)].map((match) => match[1]);
    expect(fromBuild.sort()).toEqual(['/app/bin', '/app/dist/src', '/app/node_modules', '/app/package.json']);
    expect(runtime).toMatch(/^CMD \["node", "dist\/src\/main\.js"\]$/m);
  });
});
