import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import bcrypt from 'bcrypt';
import express from 'express';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Client, Pool } from 'pg';
import { foldCase } from '../../src/domain/text';
import { openBaselinePglite } from './baseline-pglite';
import {
  ACCOUNT_SQL,
  type BaselineFilter,
  INSERT_KEY_SQL,
  searchSql,
  TOKEN_SQL,
  UPDATE_SQL,
} from './baseline-queries';

/**
 * The yardstick: the least a node server can do to answer the benchmark's requests — node:http,
 * a pg Pool, one token lookup and one SQL statement per request, no framework, no cache, no
 * validation beyond what the scenarios need. Started by the benchmark as a child process:
 * `BASELINE_DATABASE_URL=... BASELINE_SCHEMA=... PORT=... node dist/scripts/bench/baseline-server.js`.
 */

const JSON_TYPE = 'application/json; charset=utf-8';
const STREAM_BATCH = 1000;

/** A statement, named when the yardstick prepares (see PREPARE). */
interface Statement {
  name?: string;
  text: string;
  values: unknown[];
}

/** Where the statements go: a pg Pool, or one pg Client on PGlite in this very process. */
interface Db {
  query<T>(statement: Statement): Promise<{ rows: T[] }>;
  end(): Promise<void>;
}

/**
 * The service names its lookups' statements, so that each connection has the database parse and
 * plan them once (src/infrastructure/persistence/pool-queries.ts): the yardstick does as much, or
 * it measures the database planning every request against a service that does not. Named by a
 * hash of the text: each filter's shape is one statement. `BASELINE_PREPARE=0` sends them unnamed,
 * planned every time, as the yardstick did before (for continuity with older figures).
 */
const PREPARE = process.env.BASELINE_PREPARE !== '0';

function statement(text: string, values: unknown[]): Statement {
  if (!PREPARE) return { text, values };
  return { name: `b_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text, values };
}

function openDb(): Db {
  const pgliteDir = process.env.BASELINE_PGLITE_DIR;
  if (pgliteDir === undefined) {
    return new Pool({
      connectionString: process.env.BASELINE_DATABASE_URL,
      options: `-c search_path=${process.env.BASELINE_SCHEMA ?? 'public'},public`,
      max: Number(process.env.BASELINE_POOL_SIZE ?? 10),
    });
  }
  // PGlite is one session, which runs each statement in turn, as the service's does. pg's client
  // speaks the wire protocol to it (PGlite's own node-postgres adapter), as the service's
  // connections do, so that a named statement is parsed and planned once there too.
  const opened = openBaselinePglite(pgliteDir).then(async (pglite) => {
    const client = new Client(createPgConfig(pglite));
    await client.connect();
    return { pglite, client };
  });
  return {
    async query<T>(query: Statement) {
      const { client } = await opened;
      const { rows } = await client.query(query);
      return { rows: rows as T[] };
    },
    async end() {
      const { pglite, client } = await opened;
      await client.end();
      await pglite.close();
    },
  };
}

const pool = openDb();

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface KeyRow {
  id: number;
  person_id: number;
  permissions: string[];
}

/**
 * A checked token is remembered this long, as the service may remember it (its credential cache):
 * the yardstick then spends what the service spends per request, not one database round trip more.
 * `BASELINE_TOKEN_MEMORY_MS=0` looks every token up, as the baseline did before (for continuity).
 */
const TOKEN_MEMORY_MS = Number(process.env.BASELINE_TOKEN_MEMORY_MS ?? 1000);
const checked = new Map<string, { key: KeyRow; until: number }>();

async function authenticate(req: IncomingMessage, permission: string) {
  const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  if (!match) throw new HttpError(401, 'missing bearer token');
  const now = performance.now();
  let key = checked.get(match[1]);
  if (key === undefined || key.until < now) {
    const hash = createHash('sha256').update(match[1], 'utf8').digest('hex');
    const { rows } = await pool.query<KeyRow>(statement(TOKEN_SQL, [hash]));
    if (rows.length === 0) throw new HttpError(401, 'invalid token');
    key = { key: rows[0], until: now + TOKEN_MEMORY_MS };
    if (TOKEN_MEMORY_MS > 0) checked.set(match[1], key);
  }
  if (!key.key.permissions.includes(permission)) throw new HttpError(401, `missing permission ${permission}`);
  return key.key;
}

function filterOf(params: URLSearchParams): BaselineFilter {
  const flag = (name: string) => (params.has(name) ? params.get(name) === 'true' : undefined);
  const active = params.get('active');
  return {
    email: params.get('email') ?? undefined,
    firstName: params.get('first_name') ?? undefined,
    lastName: params.get('last_name') ?? undefined,
    chatId: params.get('chat_id') ?? undefined,
    active: active === 'yes' || active === 'no' ? active : undefined,
    hasChat: flag('has_chat'),
    hasPlanner: flag('has_planner'),
  };
}

async function page(res: ServerResponse, url: URL, filter: BaselineFilter, limit: number) {
  const after = url.searchParams.has('after') ? Number(url.searchParams.get('after')) : undefined;
  // One row more than asked tells whether a next page exists.
  const query = searchSql(today(), filter, { after, limit: limit + 1 });
  const { rows } = await pool.query<{ id: number; body: string }>(statement(query.text, query.values));
  const headers: Record<string, string> = {};
  if (rows.length > limit) {
    rows.length = limit;
    const next = new URL(url);
    next.searchParams.set('after', String(rows[rows.length - 1].id));
    headers.Link = `<${next.pathname}${next.search}>; rel="next"`;
  }
  send(res, 200, `[${rows.map((r) => r.body).join(',')}]`, headers);
}

/** Resolves when the chunk may be followed by more; rejects when the client has gone. */
function write(res: ServerResponse, chunk: string): Promise<void> {
  if (res.destroyed) return Promise.reject(new Error('client went away'));
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const drained = () => {
      res.off('close', closed);
      resolve();
    };
    const closed = () => {
      res.off('drain', drained);
      reject(new Error('client went away'));
    };
    res.once('drain', drained);
    res.once('close', closed);
  });
}

/**
 * Every match in keyset batches of 1000 (as the service's repository reads them): memory stays
 * flat, no connection is held between batches, and a small result costs one statement.
 */
async function stream(res: ServerResponse, filter: BaselineFilter) {
  let after: number | undefined;
  let first = true;
  for (;;) {
    const query = searchSql(today(), filter, { after, limit: STREAM_BATCH });
    const { rows } = await pool.query<{ id: number; body: string }>(statement(query.text, query.values));
    if (!res.headersSent) res.writeHead(200, { 'Content-Type': JSON_TYPE });
    if (rows.length > 0) {
      const chunk = rows.map((r) => r.body).join(',');
      await write(res, first ? `[${chunk}` : `,${chunk}`);
      first = false;
    }
    if (rows.length < STREAM_BATCH) break;
    after = rows[rows.length - 1].id;
  }
  res.end(first ? '[]' : ']');
}

async function searchPeople(req: IncomingMessage, res: ServerResponse, url: URL) {
  await authenticate(req, 'read');
  const filter = filterOf(url.searchParams);
  if (url.searchParams.has('limit')) return page(res, url, filter, Number(url.searchParams.get('limit')));
  return stream(res, filter);
}

async function updatePerson(req: IncomingMessage, res: ServerResponse, id: number) {
  const key = await authenticate(req, 'write');
  const body = JSON.parse(await readBody(req)) as Record<string, string | null>;
  const chatGiven = 'person[chat_id]' in body;
  const chatId = body['person[chat_id]'] === '' ? null : (body['person[chat_id]'] ?? null);
  const firstName = body['person[first_name]']?.trim() ?? null;
  const lastName = body['person[last_name]']?.trim() ?? null;
  const { rows } = await pool.query<{ body: string }>(
    statement(UPDATE_SQL, [
      today(),
      id,
      firstName,
      lastName,
      chatId,
      chatGiven,
      key.person_id,
      key.id,
      firstName === null ? null : foldCase(firstName),
      lastName === null ? null : foldCase(lastName),
    ]),
  );
  if (rows.length === 0) throw new HttpError(404, 'person not found');
  send(res, 200, rows[0].body);
}

async function issueKey(req: IncomingMessage, res: ServerResponse) {
  const match = /^Basic (\S+)$/.exec(req.headers.authorization ?? '');
  if (!match) throw new HttpError(401, 'missing basic credentials');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const { rows } = await pool.query<{ id: number; password_hash: string; permissions: string[] }>(
    statement(ACCOUNT_SQL, [decoded.slice(0, colon)]),
  );
  const ok = rows.length > 0 && (await bcrypt.compare(decoded.slice(colon + 1), rows[0].password_hash));
  if (!ok) throw new HttpError(401, 'wrong username or password');
  const token = `mdk_${randomBytes(24).toString('base64url')}`;
  const hash = createHash('sha256').update(token, 'utf8').digest('hex');
  const inserted = await pool.query<Record<string, unknown>>(
    statement(INSERT_KEY_SQL, [rows[0].id, token.slice(0, 8), hash, rows[0].permissions]),
  );
  send(res, 201, JSON.stringify({ ...inserted.rows[0], token }));
}

async function route(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://baseline');
  if (url.pathname === '/readyz') {
    await pool.query(statement('SELECT 1', []));
    return send(res, 200, '{"status":"ready"}');
  }
  if (url.pathname === '/people' && req.method === 'GET') return searchPeople(req, res, url);
  const person = /^\/people\/(\d+)$/.exec(url.pathname);
  if (person && req.method === 'PATCH') return updatePerson(req, res, Number(person[1]));
  if (url.pathname === '/keys' && req.method === 'POST') return issueKey(req, res);
  throw new HttpError(404, 'not found');
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  route(req, res).catch((error: unknown) => {
    const status = error instanceof HttpError ? error.status : 500;
    if (status === 500) console.error(error);
    if (res.headersSent) res.destroy();
    else send(res, status, JSON.stringify({ errors: [error instanceof Error ? error.message : 'error'] }));
  });
}

/**
 * `BASELINE_EXPRESS=1`: the same handler as the only middleware of an Express app, and nothing
 * else — the floor under any Express app, the service among them (compare-builds --express-floor;
 * docs/performance.md, "Slower machines, and the floor Express sets").
 */
function expressFloor(): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(handle);
  return app;
}

const server = createServer(process.env.BASELINE_EXPRESS === '1' ? expressFloor() : handle);
server.keepAliveTimeout = 65_000;

server.listen(Number(process.env.PORT ?? 3100), '127.0.0.1');

process.on('SIGTERM', () => {
  server.close(() => {
    pool.end().finally(() => process.exit(0));
  });
  server.closeIdleConnections();
});
