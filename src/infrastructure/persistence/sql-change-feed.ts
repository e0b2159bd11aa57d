import type { EntityManager } from 'typeorm';
import { hiddenChangeSql } from '../../application/changes/change-view';
import type {
  ChangeFeed,
  ChangeWithPerson,
  FeedPosition,
  RenderedChange,
  RenderedPage,
} from '../../application/ports/change-feed';
import type { ChangedField, ChangeType } from '../../application/ports/change-log';
import type { Grace } from '../../domain/grace';
import { type Person, visiblePersonSql } from '../../domain/person';
import { changeJsonSql } from './change-json-sql';
import { translateDatabaseError, withDatabaseErrors } from './database-errors';
import { personJsonSql, renderedClubsSql } from './person-json-sql';
import { PoolQueries } from './pool-queries';
import { PERSON_COLUMNS, type PersonSelectRow, toPerson } from './person-select';

/** A change as json_agg writes it: the timestamp as text, seq as a JSON number. */
interface ChangeRow {
  seq: number;
  at: string;
  type: ChangeType;
  person_id: number;
  fields: ChangedField[] | null;
  by_key_id: number | null;
}

interface PositionRow {
  directory_id: string;
  pruned_through: string | number;
  latest: string | number;
}

interface PageRow {
  position: PositionRow;
  changes: ChangeRow[] | null;
  people: PersonSelectRow[] | null;
}

/** One row, or one JSON object when nested in another query. */
const POSITION = `
  SELECT json_build_object(
           'directory_id', directory_id,
           'pruned_through', changes_pruned_through,
           'latest', greatest(changes_pruned_through, (SELECT max(seq) FROM changes)))
    FROM directory_meta`;

const POSITION_STATEMENT = `SELECT (${POSITION}) AS position`;

/**
 * A page of changes rendered as JSON text (the read model), with the position: one row per change
 * in seq order, or a single row with a NULL seq when there is none. Each row's person is rendered
 * as it is read, so that rows leave as they are made (no sort or hash over the page holds them
 * back): the page is sent on while the rest is rendered. The position is a one-row outer side, the
 * page the lateral inner one, so the rows keep the page's order. An admin's change is read (its
 * seq moves the cursor) but has no text, except person.removed, which tells that they left. $1: after, $2: limit, $3: today; `grace` decides standing.
 */
function renderedPageSql(grace: Grace): string {
  return `
  WITH ${renderedClubsSql()}, feed AS MATERIALIZED (
    SELECT directory_id, changes_pruned_through AS pruned_through,
           greatest(changes_pruned_through, (SELECT max(seq) FROM changes)) AS latest
      FROM directory_meta
  )
  SELECT feed.directory_id, feed.pruned_through, feed.latest, page.seq, page.json
    FROM feed LEFT JOIN LATERAL (
      SELECT c.seq,
             (SELECT CASE WHEN ${hiddenChangeSql('c', 'p')} THEN NULL ELSE ${changeJsonSql(
               `CASE WHEN ${visiblePersonSql('p')} THEN ${personJsonSql('$3', grace, true)} ELSE 'null' END`,
             )} END
                FROM (SELECT) one LEFT JOIN people p ON p.id = c.person_id) AS json
        FROM (SELECT seq, at, type, person_id, fields, by_key_id FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2) c
       ORDER BY c.seq
    ) page ON true`;
}

const renderedPages = new WeakMap<Grace, string>();

/** The statement for `grace`, built once. */
function renderedPage(grace: Grace): string {
  let sql = renderedPages.get(grace);
  if (sql === undefined) {
    sql = renderedPageSql(grace);
    renderedPages.set(grace, sql);
  }
  return sql;
}

interface RenderedRow extends PositionRow {
  seq: string | null;
  json: string | null;
}

/** The page's changes from its rows: the first batch, then the rest as they come. */
async function* renderedChanges(
  first: RenderedRow[],
  rest: AsyncGenerator<RenderedRow[]>,
): AsyncGenerator<RenderedChange[]> {
  let previous = 0;
  const changesOf = (rows: RenderedRow[]): RenderedChange[] => {
    const changes: RenderedChange[] = [];
    for (const row of rows) {
      if (row.seq === null) continue;
      const seq = Number(row.seq);
      // The statement keeps the page's order by its plan's shape (see renderedPageSql), not by a
      // final sort: were that ever lost, a page must fail rather than move a cursor wrongly.
      if (seq <= previous) throw new Error('the feed page came out of seq order');
      previous = seq;
      changes.push({ seq, json: row.json });
    }
    return changes;
  };
  try {
    yield changesOf(first);
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield changesOf(next.value);
    }
  } catch (error) {
    throw translateDatabaseError(error);
  } finally {
    await rest.return(undefined);
  }
}

function toPosition(row: PositionRow): FeedPosition {
  return {
    directoryId: row.directory_id,
    prunedThrough: Number(row.pruned_through),
    latest: Number(row.latest),
  };
}

/**
 * Reads `seq > after` in seq order. That never skips a change because seq is drawn at commit,
 * one transaction at a time (SqlChangeLog): what a reader sees is always every change up to
 * some seq, never one with a gap that a later commit fills.
 */
export class SqlChangeFeed implements ChangeFeed {
  /** Where the position is read (see PoolQueries): every list of people asks for it. */
  private readonly reads: PoolQueries;

  private readonly pagePart: (() => number) | undefined;

  constructor(
    private readonly manager: EntityManager,
    options: {
      /** The position (and the rendered page) as named prepared statements (see PoolQueries). */
      preparedPosition?: boolean;
      /**
       * Where the database runs one statement at a time (PGlite): a page larger than this is read
       * in parts of this many, so that another key's lookup waits behind a part, never a whole
       * page (SPEC §4, fair sharing). Asked before each part: smaller while others are about.
       */
      pagePart?: () => number;
    } = {},
  ) {
    this.reads = new PoolQueries(manager, options.preparedPosition ?? false);
    this.pagePart = options.pagePart;
  }

  position(): Promise<FeedPosition> {
    return withDatabaseErrors(async () => {
      const [row] = await this.reads.query<{ position: PositionRow }>(POSITION_STATEMENT, [], true);
      return toPosition(row.position);
    });
  }

  page(after: number, limit: number): Promise<{ position: FeedPosition; changes: ChangeWithPerson[] }> {
    // One statement, so one snapshot: the pruned-through mark describes the very changes read (a
    // prune committed between two reads could otherwise make an old cursor look valid), and the
    // people are as they were then. One round trip, each person once however many changes are theirs.
    return withDatabaseErrors(async () => {
      const [row]: PageRow[] = await this.manager.query(
        `WITH page AS (
           SELECT seq, at, type, person_id, fields, by_key_id FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2
         ), shown AS (
           SELECT ${PERSON_COLUMNS} FROM people p WHERE p.id IN (SELECT person_id FROM page)
         )
         SELECT (${POSITION}) AS position,
                (SELECT json_agg(page ORDER BY seq) FROM page) AS changes,
                (SELECT json_agg(shown) FROM shown) AS people`,
        [after, limit],
      );
      const people = new Map<number, Person>();
      for (const record of row.people ?? []) people.set(record.id, toPerson(record));
      return {
        position: toPosition(row.position),
        changes: (row.changes ?? []).map(
          (change): ChangeWithPerson => ({
            seq: Number(change.seq),
            at: new Date(change.at),
            type: change.type,
            personId: change.person_id,
            fields: change.fields,
            byKeyId: change.by_key_id,
            person: people.get(change.person_id) ?? null,
          }),
        ),
      };
    });
  }

  async renderedPage(after: number, limit: number, today: string, grace: Grace): Promise<RenderedPage> {
    const part = this.pagePart;
    const firstPart = part?.();
    if (part !== undefined && firstPart !== undefined && limit > firstPart) {
      return this.renderedPageInParts(after, limit, today, grace, firstPart, part);
    }
    // One statement, one snapshot, as for `page`; rows rather than one aggregate, so that the
    // texts reach node as they are, never inside a JSON document to parse, and as they are made.
    const batches = this.reads.stream<RenderedRow>(renderedPage(grace), [after, limit, today], true);
    const first = await withDatabaseErrors(() => batches.next());
    if (first.done) throw new Error('the feed statement answered no row');
    return { position: toPosition(first.value[0]), changes: renderedChanges(first.value, batches) };
  }

  /**
   * The page as several statements of `part` changes each. Each reads the position again: should a
   * prune have removed changes past the last one read meanwhile, the page ends there, as cut short
   * (the next page, asked for from its cursor, is then 410), so that no change is ever skipped.
   */
  private async renderedPageInParts(
    after: number,
    limit: number,
    today: string,
    grace: Grace,
    firstPart: number,
    part: () => number,
  ): Promise<RenderedPage> {
    const read = (from: number, size: number) =>
      withDatabaseErrors(() => this.reads.query<RenderedRow>(renderedPage(grace), [from, size, today], true));
    const seqsOf = (rows: RenderedRow[]) =>
      rows.filter((row) => row.seq !== null).map((row) => Number(row.seq));
    let asked = firstPart;
    const first = await read(after, asked);
    let cutShort = false;
    async function* rest(): AsyncGenerator<RenderedRow[]> {
      let rows = first;
      let left = limit;
      for (;;) {
        const seqs = seqsOf(rows);
        left -= seqs.length;
        // A short part is the end of the feed; a full one may have more behind it.
        if (seqs.length < asked || left === 0) return;
        const last = seqs[seqs.length - 1];
        asked = Math.min(part(), left);
        rows = await read(last, asked);
        if (toPosition(rows[0]).prunedThrough > last) {
          cutShort = true;
          return;
        }
        yield rows;
      }
    }
    return {
      position: toPosition(first[0]),
      changes: renderedChanges(first, rest()),
      cutShort: () => cutShort,
    };
  }

  prune(before: Date): Promise<number> {
    return withDatabaseErrors(() =>
      this.manager.transaction(async (manager) => {
        // Everything up to the newest old change goes, so that the mark is one number: the few
        // younger changes with a smaller seq (their transaction ran long) go with them.
        const [{ cut }]: { cut: string | null }[] = await manager.query(
          'SELECT max(seq) AS cut FROM changes WHERE at < $1',
          [before],
        );
        if (cut === null) return 0;
        await manager.query(
          'UPDATE directory_meta SET changes_pruned_through = greatest(changes_pruned_through, $1::bigint)',
          [cut],
        );
        const [{ removed }]: { removed: number }[] = await manager.query(
          'WITH gone AS (DELETE FROM changes WHERE seq <= $1 RETURNING 1) SELECT count(*)::int AS removed FROM gone',
          [cut],
        );
        return removed;
      }),
    );
  }
}
