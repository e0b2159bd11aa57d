import { get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import type { Person } from '../../../src/domain/person';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

function syntheticPerson(id: number): Person {
  return {
    id,
    role: 'member',
    firstName: `First${id}`,
    lastName: `Last${id}`,
    chatId: null,
    plannerId: null,
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
  const store = { read: 0, finished: false, failAfter: Number.POSITIVE_INFINITY };

  beforeAll(async () => {
    t = await createTestApp(target);
    token = await t.tokenWith(['read']);
    const real = t.container.get<PersonRepository>(TYPES.PersonRepository);
    const controlled: PersonRepository = Object.create(real);
    controlled.stream = async function* () {
      try {
        for (let id = 1; ; id += 1) {
          if (id > store.failAfter) throw new Error('the store failed half way');
          store.read += 1;
          yield syntheticPerson(id);
        }
      } finally {
        store.finished = true;
      }
    };
    // Before the first search, so that SearchPeople (a singleton) is built with this store.
    t.container.rebind<PersonRepository>(TYPES.PersonRepository).toConstantValue(controlled);
    server = t.app.listen(0);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  beforeEach(() => {
    Object.assign(store, { read: 0, finished: false, failAfter: Number.POSITIVE_INFINITY });
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
    await pause(300);
    const stalled = store.read;
    await pause(300);
    expect(store.read).toBe(stalled);
    expect(store.finished).toBe(false);

    res.destroy();
    for (let i = 0; i < 50 && !store.finished; i += 1) await pause(20);
    expect(store.finished).toBe(true);
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
    expect(() => JSON.parse(outcome.body)).toThrow();
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
