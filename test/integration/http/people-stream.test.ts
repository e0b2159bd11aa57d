import { NO_GRACE } from '../../../src/domain/grace';
import { get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import { personView } from '../../../src/application/people/person-view';
import type { RenderedPerson } from '../../../src/application/ports/person-repository';
import type { PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import type { Person } from '../../../src/domain/person';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

function syntheticPerson(id: number): RenderedPerson {
  return { id, json: JSON.stringify(personView(domainPerson(id), '2025-01-01', NO_GRACE)) };
}

function domainPerson(id: number): Person {
  return {
    id,
    role: 'member',
    firstName: `First${id}`,
    lastName: `Last${id}`,
    chatId: null,
    plannerId: null,
    memberNumber: null,
    erased: false,
    version: 1,
    contacts: [],
    memberships: [],
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The streaming of an unpaged search, against a store that the test controls: one that never ends
 * (to watch backpressure and a client leaving) and one that fails half way.
 */
describe.each(testDatabases)('streaming an unpaged search on $name', (target) => {
  let t: TestApp;
  let server: Server;
  let token: string;
  const store = {
    read: 0,
    finished: false,
    failAfter: Number.POSITIVE_INFINITY,
    endAfter: Number.POSITIVE_INFINITY,
  };

  beforeAll(async () => {
    t = await createTestApp(target, { prepare: (container) => control(container) });
    token = await t.tokenWith(['read']);
    server = t.app.listen(0);
  });

  /** The real store, but for a stream of synthetic people that `store` steers. */
  function control(container: Container): void {
    const real = container.get<PersonRepository>(TYPES.PersonRepository);
    const controlled: PersonRepository = Object.create(real);
    controlled.streamRendered = async function* () {
      try {
        for (let id = 1; id <= store.endAfter; id += 1) {
          if (id > store.failAfter) throw new Error('the store failed half way');
          store.read += 1;
          yield syntheticPerson(id);
        }
      } finally {
        store.finished = true;
      }
    };
    container.rebind<PersonRepository>(TYPES.PersonRepository).toConstantValue(controlled);
  }
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  beforeEach(() => {
    Object.assign(store, {
      read: 0,
      finished: false,
      failAfter: Number.POSITIVE_INFINITY,
      endAfter: Number.POSITIVE_INFINITY,
    });
  });

  function search(): Promise<IncomingMessage> {
    const { port } = server.address() as AddressInfo;
    return new Promise((resolve, reject) => {
      get({ port, path: '/people', headers: { Authorization: `Bearer ${token}` } }, resolve).on(
        'error',
        reject,
      );
    });
  }

  it('stops reading the store while the client does not read, and ends it when the client leaves', async () => {
    const res = await search();
    expect(res.statusCode).toBe(200);
    res.pause();
    // Once the socket's buffers are full the store is read no further, however long filling them
    // takes on a busy machine; without backpressure it would be read for ever (it never ends).
    let stalled = -1;
    for (let i = 0; i < 50 && store.read !== stalled; i += 1) {
      stalled = store.read;
      await pause(200);
    }
    expect(store.read).toBe(stalled);
    await pause(300);
    expect(store.read).toBe(stalled);
    expect(store.finished).toBe(false);

    res.destroy();
    for (let i = 0; i < 50 && !store.finished; i += 1) await pause(20);
    expect(store.finished).toBe(true);
  });

  function bodyOf(res: IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
  }

  it('sends a short answer whole, with its length, and a long one in chunks', async () => {
    store.endAfter = 3;
    const short = await search();
    expect(short.statusCode).toBe(200);
    expect(short.headers['transfer-encoding']).toBeUndefined();
    const shortBody = await bodyOf(short);
    expect(short.headers['content-length']).toBe(String(Buffer.byteLength(shortBody)));
    expect((JSON.parse(shortBody) as { id: number }[]).map((person) => person.id)).toEqual([1, 2, 3]);

    store.endAfter = 2000;
    const long = await search();
    expect(long.headers['transfer-encoding']).toBe('chunked');
    expect(long.headers['content-length']).toBeUndefined();
    expect(JSON.parse(await bodyOf(long))).toHaveLength(2000);
  });

  it('cuts the connection, rather than finishing the array, when the store fails after the first items', async () => {
    store.failAfter = 5000;
    const res = await search();
    expect(res.statusCode).toBe(200);
    const outcome = await new Promise<{ body: string; aborted: boolean }>((resolve) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ body, aborted: !res.complete }));
      res.on('error', () => resolve({ body, aborted: true }));
      res.on('aborted', () => resolve({ body, aborted: true }));
    });
    expect(outcome.aborted).toBe(true);
    expect(outcome.body.startsWith('[{')).toBe(true);
    expect(outcome.body.endsWith(']')).toBe(false);
    expect(() => JSON.parse(outcome.body)).toThrow(SyntaxError);
  });

  it('answers with an error status when the store fails before the first item', async () => {
    store.failAfter = 0;
    const res = await search();
    expect(res.statusCode).toBe(500);
    const body = await new Promise<string>((resolve) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve(text));
    });
    expect(JSON.parse(body)).toEqual({ errors: ['internal server error'] });
  });
});
