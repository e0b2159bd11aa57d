import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import type { PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

const LOOPS = 16;

/**
 * Fair sharing (SPEC §4), with real sockets and the real database behind a store that holds every
 * page of 1000 until the test lets it go: while another key is about, one key's 16 pages at once
 * reach the store two at a time, the rest wait in the key's own queue, and the other key's lookup
 * goes straight through meanwhile. Without the per-key turns all 16 reached the store at once, and on PGlite (one
 * session) or PostgreSQL (a pool of 10) the lookup queued behind them.
 */
describe.each(testDatabases)('fair sharing between keys on $name', (target) => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let chatId: string;
  let inStore = 0;
  let mostInStore = 0;
  let release: () => void = () => undefined;
  let held = new Promise<void>((resolve) => {
    release = resolve;
  });

  /** The real store, with pages of 1000 held until `release`. */
  const holdingPages = (container: Container) => {
    const real = container.get<PersonRepository>(TYPES.PersonRepository);
    const holding = Object.create(real) as PersonRepository;
    holding.searchRendered = async (query, limit) => {
      // A page of 1000 asks for one more, to know whether another page follows.
      if (limit !== 1001) return real.searchRendered(query, limit);
      inStore += 1;
      mostInStore = Math.max(mostInStore, inStore);
      try {
        await held;
        return await real.searchRendered(query, limit);
      } finally {
        inStore -= 1;
      }
    };
    container.rebind<PersonRepository>(TYPES.PersonRepository).toConstantValue(holding);
  };

  beforeAll(async () => {
    t = await createTestApp(target, { prepare: holdingPages });
    chatId = uniqueName('chat');
    await t.addPerson({ chatId });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    release();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  const get = async (token: string, path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.text() };
  };

  it("lets one key's burst of pages of 1000 into the store two at a time, and another key's lookup through at once", async () => {
    const busy = await t.tokenWith(['read']);
    const other = await t.tokenWith(['read']);
    // The other key is about (a chat bot looking people up): from now on the busy key is held to
    // two at a time. (A key alone is not: one client's many connections keep the whole service.)
    expect((await get(other, `/people?chat_id=${chatId}`)).status).toBe(200);
    const pages = Array.from({ length: LOOPS }, () => get(busy, '/people?limit=1000'));
    for (let waited = 0; inStore < 2 && waited < 5000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // Time for the other 14 to arrive and queue (they would be in the store by now without turns).
    await new Promise((resolve) => setTimeout(resolve, 300));

    const lookup = await get(other, `/people?chat_id=${chatId}`);
    expect(lookup.status).toBe(200);
    expect(JSON.parse(lookup.body)).toEqual([expect.objectContaining({ chat_id: chatId })]);
    expect(mostInStore).toBe(2);

    release();
    const answers = await Promise.all(pages);
    expect(answers.map((answer) => answer.status)).toEqual(Array(LOOPS).fill(200));
    expect(mostInStore).toBe(2);
    held = Promise.resolve();
  }, 60_000);
});
