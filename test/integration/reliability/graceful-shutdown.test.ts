import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { testDatabases } from '../../support/databases';
import { inspect, type Seeded, seedDirectory, startService } from './served-process';
import { serviceBuild } from '../../support/run-artifacts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request whose body is held back: it resolves `started` once the service has read the headers
 * and dispatched the request (it answers `Expect: 100-continue` only then), and sends the body when
 * `finish` is called. Until then the request is in flight on an active connection.
 */
function heldRequest(
  port: number,
  options: { method: string; path: string; token: string; body: string; agent?: http.Agent },
) {
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve;
  });
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: options.method,
    path: options.path,
    agent: options.agent,
    headers: {
      Authorization: `Bearer ${options.token}`,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(options.body),
      Expect: '100-continue',
    },
  });
  req.once('continue', started);
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
  });
  req.flushHeaders();
  return { started: startedPromise, finish: () => req.end(options.body), answer };
}

/** Sends bytes that are not HTTP and resolves with everything the service answers. */
function garbageAnswer(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.end('GARBAGE\r\n\r\n');
  });
}

/** Resolves with the error code of a new connection attempt, or 'connected'. */
function connectionAttempt(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** Where each run of the service keeps its data: a fresh PGlite directory or a fresh database. */
interface Store {
  name: string;
  create(): Promise<{
    databaseUrl: string | null;
    dataDir?: string;
    env: Record<string, string>;
    drop(): Promise<void>;
  }>;
}

const pgliteStore: Store = {
  name: 'pglite',
  async create() {
    const dataDir = mkdtempSync(join(tmpdir(), 'shutdown-'));
    return {
      databaseUrl: null,
      dataDir,
      env: { DATA_DIR: dataDir },
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  },
};

const postgresStore = (url: string): Store => ({
  name: 'postgres',
  async create() {
    const name = `shutdown_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const databaseUrl = new URL(url);
    databaseUrl.pathname = `/${name}`;
    return {
      databaseUrl: databaseUrl.toString(),
      env: { DATABASE_URL: databaseUrl.toString() },
      async drop() {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await client.end();
      },
    };
  },
});

const stores = testDatabases.map((target) => (target.url === null ? pgliteStore : postgresStore(target.url)));

describe('graceful shutdown of the running service', () => {
  let service: Awaited<ReturnType<typeof serviceBuild>>;

  beforeAll(async () => {
    service = await serviceBuild('shutdown-build');
  }, 120_000);
  afterAll(() => service?.remove());

  describe.each(stores)('on $name', (store) => {
    // One place for both signals, each with a person of its own: a DATA_DIR or database the
    // service left after a clean shutdown is where the next start begins in any case, and seeding
    // (opening, migrating, closing) once instead of twice saves about a second per store.
    let place: Awaited<ReturnType<Store['create']>>;
    let seeded: Seeded;

    beforeAll(async () => {
      place = await store.create();
      seeded = await seedDirectory(place, 2);
    }, 60_000);
    afterAll(() => place?.drop());

    it.each([
      { signal: 'SIGTERM', person: 0 },
      { signal: 'SIGINT', person: 1 },
    ] as const)(
      'on $signal it refuses new connections, finishes the requests in flight with Connection: close, closes the database and exits 0',
      async ({ signal, person }) => {
        const { token } = seeded;
        const personId = seeded.personIds[person];
        const running = await startService(service.main, place.env);
        try {
          // One request per kind: a change, and a search streamed over a keep-alive connection.
          const patch = heldRequest(running.port, {
            method: 'PATCH',
            path: `/people/${personId}`,
            token,
            body: JSON.stringify({ person: { first_name: 'Changed during shutdown' } }),
          });
          const keepAlive = new http.Agent({ keepAlive: true });
          const search = heldRequest(running.port, {
            method: 'GET',
            path: '/people',
            token,
            body: '{}',
            agent: keepAlive,
          });
          await Promise.all([patch.started, search.started]);
          // Requests Node itself cannot parse get the Error body too, here as in any answer.
          const garbage = await garbageAnswer(running.port);
          expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
          expect(garbage).toContain('\r\n\r\n{"errors":["');

          running.child.kill(signal);
          await running.logged((line) => line.signal === signal);
          // The service logs this line only after its listener has closed.
          expect(await connectionAttempt(running.port)).toBe('ECONNREFUSED');

          patch.finish();
          search.finish();
          const [patched, searched] = await Promise.all([patch.answer, search.answer]);
          expect(patched.status).toBe(200);
          expect(JSON.parse(patched.body)).toMatchObject({
            id: personId,
            first_name: 'Changed during shutdown',
          });
          expect(searched.status).toBe(200);
          // Neither client may send another request on a connection that is about to close.
          expect(patched.headers.connection).toBe('close');
          expect(searched.headers.connection).toBe('close');
          const people = JSON.parse(searched.body) as { id: number }[];
          expect(people.map((person) => person.id)).toContain(personId);

          expect(await running.exited).toEqual({ code: 0, signal: null });
          expect(running.lines.at(-1)).toMatchObject({ msg: 'stopped' });
          keepAlive.destroy();
        } finally {
          if (running.child.exitCode === null) running.child.kill('SIGKILL');
        }

        // The database was closed cleanly: it opens again and holds the change made in flight.
        const stored = await inspect(place, (database) =>
          database.dataSource.query('SELECT first_name, version FROM people WHERE id = $1', [personId]),
        );
        expect(stored).toEqual([{ first_name: 'Changed during shutdown', version: 2 }]);
      },
      60_000,
    );
  });
});
