import { createHash } from 'node:crypto';
import { type Pool, Query } from 'pg';
import type { EntityManager } from 'typeorm';
import { connectionPool } from './connection-pool';
import { RowBatches } from './row-batches';

/** Statements named per adapter; past this many, further ones go unnamed (one per filter shape). */
const MAX_NAMED_STATEMENTS = 100;

/**
 * Reads sent straight to the driver's pool when no transaction holds the manager. TypeORM's
 * `manager.query` makes, connects and releases a query runner for each statement and wraps its
 * result: on a one-person lookup that was a share of the node CPU the raw pg server does not
 * spend. Inside a transaction the statement goes through the transaction's runner, as always.
 *
 * `prepare`: statements asked for as `reusable` (lookups: the same text with other values, many
 * times a second) are named, so each connection has PostgreSQL parse and plan them once, and
 * sends their long text (the person rendered as JSON) once. Only on PostgreSQL: PGlite's
 * connections share one session, where a name one connection prepared would collide with the
 * next one's.
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
    const name = reusable && this.prepare ? this.nameOf(text) : undefined;
    const { rows } = await pool.query(name === undefined ? { text, values } : { name, text, values });
    return rows as T[];
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
    const name = reusable && this.prepare ? this.nameOf(text) : undefined;
    const client = await pool.connect();
    const batches = new RowBatches<T>();
    const query = new Query(name === undefined ? { text, values } : { name, text, values });
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
      name = `read_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      this.names.set(text, name);
    }
    return name;
  }
}
