import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { Conflict, InvalidInput, NotFound, Unavailable } from '../../../src/domain/errors';
import { openDatabase } from '../../../src/infrastructure/persistence/database';
import {
  isDatabaseUnavailable,
  translateDatabaseError,
  withDatabaseErrors,
} from '../../../src/infrastructure/persistence/database-errors';
import { createRepositories } from '../../../src/infrastructure/persistence/repositories';
import { openTestDatabase, testDatabases } from '../../support/databases';

function driverError(code: string, extra: Record<string, unknown> = {}): QueryFailedError {
  const error = Object.assign(new Error('duplicate key value violates unique constraint'), {
    code,
    ...extra,
  });
  return new QueryFailedError('UPDATE people SET chat_id = $1', ['x'], error);
}

describe('database errors', () => {
  it('turns a unique violation into Conflict with a message for the constraint', () => {
    const chat = translateDatabaseError(driverError('23505', { constraint: 'people_member_chat_id_key' }));
    const username = translateDatabaseError(driverError('23505', { constraint: 'people_username_key' }));

    expect(chat).toBeInstanceOf(Conflict);
    expect((chat as Error).message).toBe('chat_id is already used by another person');
    expect((username as Error).message).toBe('username is already taken');
  });

  it.each([['57P01'], ['57P03'], ['53300'], ['08006'], ['3D000'], ['ECONNREFUSED'], ['ECONNRESET']])(
    'treats %s as the database being unavailable',
    (code) => {
      const error = Object.assign(new Error('gone'), { code });

      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(translateDatabaseError(new QueryFailedError('SELECT 1', [], error))).toBeInstanceOf(Unavailable);
    },
  );

  it('treats a terminated connection and a connection timeout as unavailable', () => {
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
  });

  it('treats a database that refuses connections (ALLOW_CONNECTIONS false) as unavailable', () => {
    const refused = Object.assign(new Error('database "directory" is not currently accepting connections'), {
      code: '55000',
    });

    expect(translateDatabaseError(refused)).toBeInstanceOf(Unavailable);
    expect(
      isDatabaseUnavailable(Object.assign(new Error('object not in prerequisite state'), { code: '55000' })),
    ).toBe(false);
  });

  it.each([['22021'], ['22P05']])('turns text PostgreSQL cannot hold (%s) into InvalidInput', (code) => {
    const translated = translateDatabaseError(driverError(code)) as Error;

    expect(translated).toBeInstanceOf(InvalidInput);
    expect(translated.message).not.toMatch(/UPDATE|people/);
  });

  it('hides any other database error behind a message without SQL, keeping it as the cause', () => {
    const original = driverError('42703');

    const translated = translateDatabaseError(original) as Error;

    expect(translated.constructor).toBe(Error);
    expect(translated.message).not.toMatch(/people|UPDATE|chat_id/);
    expect(translated.cause).toBe(original);
  });

  it('passes domain errors and errors not from the database through unchanged', () => {
    const notFound = new NotFound('person 1 not found');
    const bug = new TypeError('not a function');

    expect(translateDatabaseError(notFound)).toBe(notFound);
    expect(translateDatabaseError(bug)).toBe(bug);
  });

  it.each(testDatabases)('reports a closed $name database as Unavailable', async (target) => {
    const database = await openTestDatabase(target);
    const { people } = createRepositories(database.dataSource.manager);
    await database.close();

    await expect(people.count()).rejects.toBeInstanceOf(Unavailable);
  });

  it('reports a PostgreSQL server that cannot be reached as Unavailable, promptly', async () => {
    const started = Date.now();

    await expect(openDatabase({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none' })).rejects.toBeInstanceOf(
      Unavailable,
    );
    expect(Date.now() - started).toBeLessThan(6000);
  });
});

/** What a database restart does to the connections of a running service. */
async function terminateBackend(url: string, pid: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await client.end();
  }
}

/**
 * The answer of `query` once it succeeds, within two seconds. Right after a loss, one request can
 * still meet the dead connection before the pool has noticed; the claim is that no restart is needed.
 */
async function eventually<T>(query: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 2000;
  while (true) {
    try {
      return await query();
    } catch (error) {
      if (!(error instanceof Unavailable) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const backendPid = async (database: { dataSource: { query(sql: string): Promise<{ pid: number }[]> } }) =>
  (await database.dataSource.query('SELECT pg_backend_pid() AS pid'))[0].pid;

for (const target of testDatabases.filter((t) => t.url !== null)) {
  describe(`when ${target.name} drops the connections`, () => {
    it('survives losing an idle connection and answers the next query on a new one', async () => {
      const database = await openTestDatabase(target);
      try {
        await terminateBackend(target.url!, await backendPid(database));

        expect(await eventually(() => createRepositories(database.dataSource.manager).people.count())).toBe(
          0,
        );
      } finally {
        await database.close();
      }
    });

    it('reports a query cut off by the loss as Unavailable, then recovers', async () => {
      const database = await openTestDatabase(target);
      try {
        const queryRunner = database.dataSource.createQueryRunner();
        await queryRunner.connect();
        const pid = (await queryRunner.query('SELECT pg_backend_pid() AS pid'))[0].pid;
        const slow = withDatabaseErrors(() => queryRunner.query('SELECT pg_sleep(10)'));
        await new Promise((resolve) => setTimeout(resolve, 200));

        await terminateBackend(target.url!, pid);

        await expect(slow).rejects.toBeInstanceOf(Unavailable);
        await queryRunner.release().catch(() => undefined);
        expect(await eventually(() => createRepositories(database.dataSource.manager).people.count())).toBe(
          0,
        );
      } finally {
        await database.close();
      }
    });
  });
}
