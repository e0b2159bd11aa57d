import { createHash } from 'node:crypto';
import { type Pool, Query } from 'pg';
import type { EntityManager } from 'typeorm';
import { connectionPool } from './connection-pool';
import { RowBatches } from './row-batches';

/** Statements named per adapter; past this many, further ones go unnamed (one per filter shape). */
const MAX_NAMED_STATEMENTS = 100;

/**
 * What the service's statement names start with. The embedded database's gate keeps them when it
 * clears what the tools' connections prepared (see session-state.ts).
 */
export const SERVICE_STATEMENT_PREFIX = 'read_';

/**
 * The statement was not there (26000: a tool beside the embedded service deallocated it) or was
 * there already (42P05: prepared in the session by a connection since replaced).
 */
const LOST_STATEMENT = new Set(['26000', '42P05']);

/** Each connection's number, part of the names it prepares (see nameOn). */
const connectionNumbers = new WeakMap<object, number>();
let connectionsNumbered = 0;

function connectionNumber(client: object): number {
  let number = connectionNumbers.get(client);
  if (number === undefined) {
    connectionsNumbered += 1;
    number = connectionsNumbered;
    connectionNumbers.set(client, number);
  }
  return number;
}

/**
 * Reads sent straight to the driver's pool when no transaction holds the manager. TypeORM's
 * `manager.query` makes, connects and releases a query runner for each statement and wraps its
 * result: on a one-person lookup that was a share of the node CPU the raw pg server does not
 * spend. Inside a transaction the statement goes through the transaction's runner, as always.
 *
 * `prepare`: statements asked for as `reusable` (lookups: the same text with other values, many
 * times a second) are named, so each connection has the database parse and plan them once, and
 * sends their long text (the person rendered as JSON) once: on PGlite, where planning was three
 * quarters of a chat_id lookup's work, that is a lookup at a quarter of the cost. A name belongs
 * to one connection (PGlite's connections share one session, where another's name would
 * collide); should the session have lost it (a tool beside the embedded service deallocated it),
 * the connection is replaced and the statement prepared again under the new one's name.
 */
export class PoolQueries {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly manager: EntityManager,
    private readonly prepare: boolean,
  ) {}

  async query<T>(text: string, values: unknown[], reusable = false): Promise<T[]> {
    const pool = this.pool();
    if (pool === undefined) return this.manager.query(text, values);
    const base = reusable && this.prepare ? this.nameOf(text) : undefined;
    if (base === undefined) return (await pool.query({ text, values })).rows as T[];
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect();
      try {
        const { rows } = await client.query({ name: nameOn(client, base), text, values });
        client.release();
        return rows as T[];
      } catch (error) {
        // As pg's own Pool#query does: a connection that failed a statement is not reused.
        client.release(error as Error);
        if (attempt > 1 || !LOST_STATEMENT.has((error as { code?: string }).code ?? '')) throw error;
      }
    }
  }

  /**
   * The rows of one statement in batches as they come in (each what one read of the socket
   * brought), so that the reader can hand them on while the database still works on the rest.
   * The statement always runs to its end and its connection goes back to the pool then, whether
   * or not the reader reads on: a reader may stop at any point. In a transaction, or without a
   * pool, the rows come in one batch.
   */
  async *stream<T>(text: string, values: unknown[], reusable = false): AsyncGenerator<T[]> {
    const pool = this.pool();
    if (pool === undefined) {
      yield await this.manager.query(text, values);
      return;
    }
    const base = reusable && this.prepare ? this.nameOf(text) : undefined;
    const client = await pool.connect();
    const batches = new RowBatches<T>();
    const query = new Query(
      base === undefined ? { text, values } : { name: nameOn(client, base), text, values },
    );
    query.on('row', (row: T) => batches.add(row));
    query.on('end', () => {
      client.release();
      batches.end();
    });
    query.on('error', (error: Error) => {
      // As pg's own Pool#query does: a connection that failed a statement is not reused.
      client.release(error);
      batches.fail(error);
    });
    client.query(query);
    yield* batches;
  }

  /** The pool, unless a transaction holds the manager or the connection is not (or no longer) open. */
  private pool(): Pool | undefined {
    if (this.manager.queryRunner !== undefined) return undefined;
    return connectionPool(this.manager.connection);
  }

  private nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_NAMED_STATEMENTS) {
      // Named after the text: adapters each with their own PoolQueries share the pool's
      // connections, and one name must never stand for two statements on a connection.
      name = `${SERVICE_STATEMENT_PREFIX}${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/** The statement's name on this connection: its own, so that no two connections' names meet. */
function nameOn(client: object, base: string): string {
  return `${base}_${connectionNumber(client)}`;
}
