import { NO_GRACE } from '../../../src/domain/grace';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import type { ChangeFeed } from '../../../src/application/ports/change-feed';
import type { PersonRepository } from '../../../src/application/ports/person-repository';
import { TYPES } from '../../../src/application/ports/tokens';
import { createTestApp, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

const LOOPS = 16;

/**
 * Fair sharing (SPEC §4), with real sockets and the real database behind stores that hold every
 * page of 1000 (people, or changes) until the test lets it go: while another key is about, one
 * key's 16 pages at once reach the store one at a time (a heavy request), the rest wait in the
 * key's own queues, and the other key's lookup goes straight through meanwhile. Without the
 * per-key turns all 16 reached the store at once, and on PGlite (one session) or PostgreSQL (a
 * pool of 10) the lookup queued behind them. A key's unpaged streams take no turn: they have
 * limits of their own.
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

  /** `read`, counted while it runs, held until `release` when it reads a page of 1000. */
  const holding = async <T>(limit: number, read: () => Promise<T>): Promise<T> => {
    // A page of 1000 asks for one more, to know whether another page follows.
    if (limit !== 1001) return read();
    inStore += 1;
    mostInStore = Math.max(mostInStore, inStore);
    try {
      await held;
      return await read();
    } finally {
      inStore -= 1;
    }
  };

  // Unpaged lookups and the full list, held until `releaseOthers` while `holdOthers` is set.
  let holdOthers = false;
  let lookupsInStore = 0;
  let streamsInStore = 0;
  let releaseOthers: () => void = () => undefined;
  let othersHeld = Promise.resolve();

  /** The real stores, with pages of 1000 held until `release` (and lookups and streams, above). */
  const holdingPages = (container: Container) => {
    const people = container.get<PersonRepository>(TYPES.PersonRepository);
    const holdingPeople = Object.create(people) as PersonRepository;
    holdingPeople.searchRendered = async (query, limit) => {
      if (!holdOthers || !query.lookup) return holding(limit, () => people.searchRendered(query, limit));
      lookupsInStore += 1;
      await othersHeld;
      return people.searchRendered(query, limit);
    };
    holdingPeople.streamRendered = (query) => {
      const rest = people.streamRendered(query);
      if (!holdOthers) return rest;
      streamsInStore += 1;
      return (async function* () {
        await othersHeld;
        yield* rest;
      })();
    };
    container.rebind<PersonRepository>(TYPES.PersonRepository).toConstantValue(holdingPeople);
    const feed = container.get<ChangeFeed>(TYPES.ChangeFeed);
    const holdingFeed = Object.create(feed) as ChangeFeed;
    holdingFeed.renderedPage = (after, limit, today) =>
      holding(limit, () => feed.renderedPage(after, limit, today, NO_GRACE));
    container.rebind<ChangeFeed>(TYPES.ChangeFeed).toConstantValue(holdingFeed);
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
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  const get = async (token: string, path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.text() };
  };

  it.each([
    ['pages of people', '/people?limit=1000'],
    ['pages of the change feed', '/changes?limit=1000'],
  ])(
    "lets one key's burst of %s into the store one at a time, and another key's lookup through at once",
    async (_, path) => {
      inStore = 0;
      mostInStore = 0;
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const busy = await t.tokenWith(['read']);
      const other = await t.tokenWith(['read']);
      // The other key is about (a chat bot looking people up): from now on the busy key is held to
      // one heavy request at a time. (A key alone is not: one client's many connections keep the
      // whole service.)
      expect((await get(other, `/people?chat_id=${chatId}`)).status).toBe(200);
      const pages = Array.from({ length: LOOPS }, () => get(busy, path));
      for (let waited = 0; inStore < 1 && waited < 5000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      // Time for the other 15 to arrive and queue (they would be in the store by now without turns).
      await new Promise((resolve) => setTimeout(resolve, 300));

      const lookup = await get(other, `/people?chat_id=${chatId}`);
      expect(lookup.status).toBe(200);
      expect(JSON.parse(lookup.body)).toEqual([expect.objectContaining({ chat_id: chatId })]);
      expect(mostInStore).toBe(1);

      // The chat bot goes on looking people up while the burst drains (each page of the busy key
      // now followed by a rest): the busy key stays held to one heavy request at a time. (Once
      // the other key has been quiet for a second the busy key is alone, and its rest all go.)
      let draining = true;
      const chatBot = (async () => {
        while (draining) {
          expect((await get(other, `/people?chat_id=${chatId}`)).status).toBe(200);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      release();
      const answers = await Promise.all(pages);
      draining = false;
      await chatBot;
      expect(answers.map((answer) => answer.status)).toEqual(Array(LOOPS).fill(200));
      expect(mostInStore).toBe(1);
    },
    60_000,
  );

  it("takes no turn for a key's unpaged streams: another key's lookups are not held to two at a time by them", async () => {
    holdOthers = true;
    lookupsInStore = 0;
    streamsInStore = 0;
    othersHeld = new Promise<void>((resolve) => {
      releaseOthers = resolve;
    });
    try {
      // The keys of the tests above have been quiet for a second: they are no longer about.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const streamer = await t.tokenWith(['read']);
      const other = await t.tokenWith(['read']);
      // The streaming key's clients: four let in (STREAMS_PER_KEY), held in the store, and one
      // more refused, as a careless client's every retry would be.
      const streams = Array.from({ length: 4 }, () => get(streamer, '/people'));
      for (let waited = 0; streamsInStore < 4 && waited < 5000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(streamsInStore).toBe(4);
      expect((await get(streamer, '/people')).status).toBe(429);

      // Had those requests taken turns, their key would be about and the other key's lookups
      // would reach the store two at a time.
      const lookups = Array.from({ length: 4 }, () => get(other, `/people?chat_id=${chatId}`));
      for (let waited = 0; lookupsInStore < 4 && waited < 2000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(lookupsInStore).toBe(4);

      releaseOthers();
      for (const lookup of await Promise.all(lookups)) {
        expect(lookup.status).toBe(200);
        expect(JSON.parse(lookup.body)).toEqual([expect.objectContaining({ chat_id: chatId })]);
      }
      expect((await Promise.all(streams)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    } finally {
      holdOthers = false;
      releaseOthers();
    }
  }, 60_000);
});
