import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import pino from 'pino';
import { LOCK_FILE } from '../../../src/infrastructure/embedded/data-dir-lock';
import {
  connectToDatabaseServer,
  type Database,
  openDatabase,
} from '../../../src/infrastructure/persistence/database';
import { SOCKET_NAME } from '../../../src/infrastructure/embedded/database-socket-path';
import { type DatabaseServer, serveDatabase } from '../../../src/infrastructure/embedded/serve-database';
import { testDatabases } from '../../support/databases';
import { copyMigratedDataDir, migratedDataDir } from '../../support/run-artifacts';

const IDLE_MS = 600;
const MAX_CONNECTIONS = 3;
/** What pg answers a query on a connection the server has ended, by how far it has noticed. */
const CONNECTION_ENDED = /not queryable|Connection terminated|EPIPE|ECONNRESET/;

/** One of a protocol message's parts: a string (NUL-terminated), or a 16- or 32-bit integer. */
type Part = string | { int16: number } | { int32: number };

/** A frontend message, built by hand: pg offers no way to send half a batch. */
function message(type: string | null, ...parts: Part[]): Buffer {
  const body = Buffer.concat(
    parts.map((part) => {
      if (typeof part === 'string') return Buffer.from(`${part}\0`);
      const bytes = Buffer.alloc('int16' in part ? 2 : 4);
      if ('int16' in part) bytes.writeInt16BE(part.int16);
      else bytes.writeInt32BE(part.int32);
      return bytes;
    }),
  );
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([type === null ? Buffer.alloc(0) : Buffer.from(type), length, body]);
}

// Embedded only: skipped in the PostgreSQL stage (TEST_DATABASES=postgres).
const embedded = testDatabases.some((target) => target.name === 'pglite');

(embedded ? describe : describe.skip)('the embedded database served to other processes', () => {
  let dataDir: string;
  let database: Database;
  let server: DatabaseServer;
  const visitorsDone: number[] = [];
  const clients: pg.Client[] = [];

  /** A client of the socket, as the command-line tool or psql would be. */
  async function visitor(): Promise<pg.Client> {
    const client = new pg.Client({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres' });
    client.on('error', () => undefined);
    clients.push(client);
    await client.connect();
    return client;
  }

  async function rows(where = 'true'): Promise<{ who: string; n: number; step: number; xid: string }[]> {
    return database.dataSource.query(
      `SELECT who, n, step, xid::text FROM t WHERE ${where} ORDER BY who, n, step`,
    );
  }

  beforeAll(async () => {
    dataDir = await migratedDataDir('serve-database-');
    database = await openDatabase({ databaseUrl: null, dataDir });
    database.gate?.onVisitorDone(() => visitorsDone.push(performance.now()));
    await database.dataSource.query(
      'CREATE TABLE t (who text NOT NULL, n int NOT NULL, step int NOT NULL, xid bigint NOT NULL DEFAULT txid_current())',
    );
    server = await serveDatabase(database, {
      logger: pino({ level: 'silent' }),
      idleMs: IDLE_MS,
      maxConnections: MAX_CONNECTIONS,
    });
  }, 60_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.end().catch(() => undefined)));
    await database.dataSource.query('TRUNCATE t');
  });

  afterAll(async () => {
    await server?.close();
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('listens as PostgreSQL would, on .s.PGSQL.5432 in the data directory, for this user only', () => {
    const socketPath = join(dataDir, SOCKET_NAME);
    expect(server.socketPath).toBe(socketPath);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toEqual({
      pid: process.pid,
      socket: socketPath,
    });
  });

  it("keeps this process's transactions and a visitor's apart, in both directions", async () => {
    const client = await visitor();
    const until = performance.now() + 2000;
    let committed = 0;
    // The service commits two rows a transaction, with a pause between them.
    const service = (async () => {
      for (let n = 0; performance.now() < until; n += 1) {
        await database.dataSource.transaction(async (manager) => {
          await manager.query("INSERT INTO t (who, n, step) VALUES ('service', $1, 1)", [n]);
          await sleep(40);
          await manager.query("INSERT INTO t (who, n, step) VALUES ('service', $1, 2)", [n]);
        });
        committed += 1;
      }
    })();
    // The visitor does the same, and rolls back.
    const other = (async () => {
      for (let n = 0; performance.now() < until; n += 1) {
        await client.query('BEGIN');
        await client.query("INSERT INTO t (who, n, step) VALUES ('visitor', $1, 1)", [n]);
        await sleep(30);
        await client.query("INSERT INTO t (who, n, step) VALUES ('visitor', $1, 2)", [n]);
        await client.query('ROLLBACK');
      }
    })();
    await Promise.all([service, other]);

    const all = await rows();
    expect(committed).toBeGreaterThan(5);
    expect(all.filter((row) => row.who === 'visitor')).toEqual([]);
    expect(all).toHaveLength(2 * committed);
    // Both rows of each transaction, and nothing else, in one transaction of PostgreSQL's.
    const byXid = new Map<string, number[]>();
    for (const row of all) byXid.set(row.xid, [...(byXid.get(row.xid) ?? []), row.n]);
    expect([...byXid.values()].every((ns) => ns.length === 2 && ns[0] === ns[1])).toBe(true);
  });

  /** A client that speaks the protocol by hand: pg offers no way to send half a batch. */
  async function rawVisitor(): Promise<{
    send: (...messages: Buffer[]) => void;
    heard: (text: string) => Promise<void>;
    leave: () => void;
  }> {
    const raw = createConnection(join(dataDir, SOCKET_NAME));
    raw.on('error', () => undefined);
    const answers: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => answers.push(chunk));
    await new Promise((resolve) => raw.once('connect', resolve));
    raw.write(message(null, { int32: 196_608 }, 'user', 'postgres', 'database', 'postgres', ''));
    return {
      send: (...messages) => {
        for (const each of messages) raw.write(each);
      },
      heard: async (text) => {
        for (let i = 0; i < 100 && !Buffer.concat(answers).includes(text); i += 1) await sleep(20);
        expect(Buffer.concat(answers).toString()).toContain(text);
      },
      leave: () => raw.destroy(),
    };
  }

  it('rolls back what a visitor left when it went away, in a transaction or halfway through a batch', async () => {
    const client = await visitor();
    await client.query('BEGIN');
    await client.query("INSERT INTO t (who, n, step) VALUES ('visitor', 1, 1)");
    // Gone without a word, in its transaction.
    (client as unknown as { connection: { stream: Socket } }).connection.stream.destroy();

    // An INSERT's Parse, Bind and Execute, but never the Sync that would end its transaction.
    const raw = await rawVisitor();
    raw.send(
      message('P', '', "INSERT INTO t (who, n, step) VALUES ('batch', 1, 1)", { int16: 0 }),
      message('B', '', '', { int16: 0 }, { int16: 0 }, { int16: 0 }),
      message('E', '', { int32: 0 }),
    );
    await raw.heard('INSERT 0 1');
    raw.leave();

    // This process waits its turn, then finds neither row.
    expect(await rows()).toEqual([]);
    await database.dataSource.query("INSERT INTO t (who, n, step) VALUES ('service', 1, 1)");
    expect((await rows()).map((row) => row.who)).toEqual(['service']);
  });

  it('leaves the session usable when a visitor went away after an error it never closed with Sync', async () => {
    // After an error, PostgreSQL ignores every message until Sync: the next user's too, unless
    // the gate sends one.
    const raw = await rawVisitor();
    raw.send(message('P', '', 'SELEC 1', { int16: 0 }));
    await raw.heard('syntax error');
    raw.leave();

    await database.dataSource.query("INSERT INTO t (who, n, step) VALUES ('service', $1, 1)", [7]);
    expect(await rows()).toEqual([expect.objectContaining({ who: 'service', n: 7 })]);
  });

  it('cuts off a visitor that holds the session without a word, not the ones waiting behind it', async () => {
    const idle = await visitor();
    const waiting = await visitor();
    await idle.query('BEGIN');
    await idle.query("INSERT INTO t (who, n, step) VALUES ('idle', 1, 1)");
    const started = performance.now();
    // Waits for the idle visitor's transaction; longer than the limit, which is the idle one's.
    await sleep(IDLE_MS / 2);
    const inserted = waiting.query("INSERT INTO t (who, n, step) VALUES ('waiting', 1, 1)");
    await inserted;
    const waited = performance.now() - started;

    expect(waited).toBeGreaterThanOrEqual(IDLE_MS - 50);
    await expect(idle.query('COMMIT')).rejects.toThrow(CONNECTION_ENDED);
    expect((await rows()).map((row) => row.who)).toEqual(['waiting']);
  });

  it("tells this process that a visitor's transaction is over before the visitor hears it", async () => {
    const client = await visitor();
    await client.query('BEGIN');
    await client.query("INSERT INTO t (who, n, step) VALUES ('visitor', 1, 1)");
    visitorsDone.length = 0;
    await client.query('COMMIT');
    const answered = performance.now();

    expect(visitorsDone).toHaveLength(1);
    expect(visitorsDone[0]).toBeLessThanOrEqual(answered);
  });

  it('refuses a connection beyond the limit with "too many connections", and serves the others', async () => {
    const connected = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => visitor()));
    await expect(visitor()).rejects.toMatchObject({ code: '53300' });
    await Promise.all(connected.map((client) => client.query('SELECT 1')));
  });

  it('on close, lets a transaction begun finish, then ends the connections and removes its socket', async () => {
    const otherDir = await migratedDataDir('serve-database-close-');
    const other = await openDatabase({ databaseUrl: null, dataDir: otherDir });
    try {
      await other.dataSource.query('CREATE TABLE u (n int)');
      const otherServer = await serveDatabase(other, { logger: pino({ level: 'silent' }) });
      const client = new pg.Client({ host: otherDir, port: 5432, user: 'postgres', database: 'postgres' });
      client.on('error', () => undefined);
      clients.push(client);
      await client.connect();
      await client.query('BEGIN');
      await client.query('INSERT INTO u VALUES (1)');

      let closed = false;
      const closing = otherServer.close().then(() => {
        closed = true;
      });
      await sleep(100);
      expect(closed).toBe(false);
      await client.query('INSERT INTO u VALUES (2)');
      await client.query('COMMIT');
      await closing;

      await expect(client.query('SELECT 1')).rejects.toThrow(CONNECTION_ENDED);
      expect(existsSync(join(otherDir, SOCKET_NAME))).toBe(false);
      expect(JSON.parse(readFileSync(join(otherDir, LOCK_FILE), 'utf8')).socket).toBeNull();
      expect(await other.dataSource.query('SELECT n FROM u ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }]);
    } finally {
      await other.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  describe('where the socket is: never at a name another local user could take first', () => {
    /** Serves a migrated database in `dataDir`; answers where, then stops and removes it all. */
    async function servedAt(
      dataDir: string,
      check: (server: DatabaseServer) => Promise<void>,
    ): Promise<void> {
      await copyMigratedDataDir(dataDir);
      const other = await openDatabase({ databaseUrl: null, dataDir });
      try {
        const otherServer = await serveDatabase(other, { logger: pino({ level: 'silent' }) });
        try {
          await check(otherServer);
        } finally {
          await otherServer.close();
        }
        expect(existsSync(otherServer.socketPath)).toBe(false);
        if (dirname(otherServer.socketPath) !== dataDir)
          expect(existsSync(dirname(otherServer.socketPath))).toBe(false);
      } finally {
        await other.close();
      }
    }

    /** The socket is in a directory of its own: new, random, 0700, ours; the lock file says where. */
    async function expectPrivateDirectory(dataDir: string, server: DatabaseServer): Promise<void> {
      const directory = dirname(server.socketPath);
      expect(basename(server.socketPath)).toBe(SOCKET_NAME);
      expect(directory).not.toBe(dataDir);
      expect(basename(directory)).toMatch(/^membership-directory-[A-Za-z0-9]{6}$/);
      const stat = lstatSync(directory);
      expect(stat.isDirectory()).toBe(true);
      expect(stat.mode & 0o777).toBe(0o700);
      expect(stat.uid).toBe(process.getuid?.());
      expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).socket).toBe(server.socketPath);
      // The command-line tool finds it through the lock file, and answers come back.
      const tool = await connectToDatabaseServer(server.socketPath, process.pid);
      try {
        expect(await tool.dataSource.query('SELECT count(*)::int AS n FROM api_keys')).toEqual([{ n: 0 }]);
      } finally {
        await tool.close();
      }
    }

    it('a DATA_DIR too long for a socket: in a new private directory, however many files were planted at the old name', async () => {
      const parent = mkdtempSync(join(tmpdir(), 'serve-long-'));
      const dataDir = join(parent, 'a-data-directory-whose-path-is-too-long-for-a-unix-socket-'.repeat(2));
      mkdirSync(dataDir, { mode: 0o700 });
      // The name the socket once had, derived from the directory: planted first, as another
      // local user could (a file, and a directory of the same prefix).
      const digest = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
      const oldName = join(tmpdir(), `membership-directory-${digest}.sock`);
      writeFileSync(oldName, 'planted');
      try {
        await servedAt(dataDir, (server) => expectPrivateDirectory(dataDir, server));
        expect(readFileSync(oldName, 'utf8')).toBe('planted');
      } finally {
        rmSync(oldName, { force: true });
        rmSync(parent, { recursive: true, force: true });
      }
    });

    it('something other than a socket at DATA_DIR/.s.PGSQL.5432: left alone, and the socket in a private directory', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'serve-planted-'));
      // Left there while DATA_DIR was still open to others, before the service made it private.
      writeFileSync(join(dataDir, SOCKET_NAME), 'planted');
      try {
        await servedAt(dataDir, (server) => expectPrivateDirectory(dataDir, server));
        expect(readFileSync(join(dataDir, SOCKET_NAME), 'utf8')).toBe('planted');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});
