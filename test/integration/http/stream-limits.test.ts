import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { APP } from '../../../src/container';
import type { RequestActivity } from '../../../src/request-activity';
import type { AppOptions } from '../../../src/http/app';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../../support/app';
import { testDatabases } from '../../support/databases';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  for (let waited = 0; !condition() && waited < ms; waited += 20) await pause(20);
}

// About 8 MB of JSON: far more than loopback's socket buffers take in for a client that never reads.
const PEOPLE = 4000;
// The smallest caps that still tell the key's from the instance's: each stream held costs the
// server a batch of people read and a socket buffer's worth written (4 and 6 held twice as many).
const PER_KEY = 2;
const PER_INSTANCE = 3;
const ADDRESS = `${'Observatory Lane '.repeat(35)}\nNorthfield`;

interface RawAnswer {
  socket: Socket;
  status: number;
  head: string;
  /** Everything received so far (the rest of the body once the socket is resumed). */
  received: () => string;
  ended: Promise<void>;
}

/**
 * A raw HTTP/1.1 client: sends GET `path`, waits for the status line and headers, and then stops
 * reading, as a client that never reads does. Resume `socket` to read on.
 */
function rawGet(port: number, token: string, path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    // Kept as chunks and joined when asked: searching or flattening the whole text at every chunk
    // of an 8 MB body cost about a second of CPU per run of this file.
    const chunks: string[] = [];
    let answered = false;
    const received = () => {
      if (chunks.length > 1) chunks.splice(0, chunks.length, chunks.join(''));
      return chunks[0] ?? '';
    };
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.setEncoding('latin1');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      chunks.push(chunk);
      if (answered) return;
      const text = received();
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      answered = true;
      socket.pause();
      const head = text.slice(0, end);
      resolve({ socket, status: Number(head.slice(9, 12)), head, received, ended });
    });
    // One request per connection: the answer ends with the connection, as readAll expects.
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
  });
}

/** The whole answer: resumes the socket and reads until the server closes the connection. */
async function readAll(answer: RawAnswer): Promise<{ body: string; complete: boolean }> {
  answer.socket.resume();
  await answer.ended;
  const text = answer.received();
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  // Chunked: a complete answer ends with the last, empty chunk.
  return { body, complete: text.endsWith('\r\n0\r\n\r\n') };
}

/** The JSON body of a short, non-streamed answer. */
function jsonBody(answer: RawAnswer): unknown {
  const text = answer.received();
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

async function listening(t: TestApp): Promise<{ server: Server; port: number }> {
  const server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function addCrowd(t: TestApp): Promise<number[]> {
  const contacts = [1, 2, 3].map((n) => ({
    kind: 'address' as const,
    value: `${n} ${ADDRESS}`,
    label: null,
  }));
  return t.addPeople(Array.from({ length: PEOPLE }, () => newPerson({ contacts })));
}

/**
 * The caps on unpaged searches, with real sockets: clients that never read hold their streams
 * (the server cannot write more than the socket buffers take), exactly as slow clients do.
 */
describe.each(testDatabases)('limits on unpaged searches on $name', (target) => {
  const open: Socket[] = [];
  const closeOpen = () => {
    for (const socket of open.splice(0)) socket.destroy();
  };
  afterEach(closeOpen);

  // One crowd for both apps of the file: the first app's database, which it closes last.
  let crowded: TestApp;
  let ids: number[];
  beforeAll(async () => {
    crowded = await createTestApp(target, {
      env: { STREAMS_PER_KEY: String(PER_KEY), STREAMS_PER_INSTANCE: String(PER_INSTANCE) },
      // A refusal after 50-150 ms rather than the default second (its length: the unit test).
      app: { streamPlaceWaitMs: 100 },
    });
    ids = await addCrowd(crowded);
  }, 60_000);
  afterAll(async () => {
    await crowded?.close();
  });

  /** `count` streams of the key, one after another, let in and never read (closed after each test). */
  async function stalledStreams(port: number, token: string, count: number): Promise<RawAnswer[]> {
    const answers: RawAnswer[] = [];
    for (let i = 0; i < count; i += 1) {
      const answer = await rawGet(port, token, '/people');
      open.push(answer.socket);
      answers.push(answer);
    }
    return answers;
  }

  interface Beside {
    t: TestApp;
    server: Server;
    port: number;
  }

  /** Another app on the crowd's database, with `app`'s options, listening. */
  async function appBeside(app: AppOptions): Promise<Beside> {
    const t = await createTestApp(target, {
      env: { STREAMS_PER_KEY: String(PER_KEY) },
      app,
      database: crowded.database,
    });
    return { t, ...(await listening(t)) };
  }

  async function closeBeside({ t, server }: Beside): Promise<void> {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  }

  describe('per key and per instance', () => {
    let t: TestApp;
    let server: Server;
    let port: number;
    let activity: RequestActivity;

    beforeAll(async () => {
      t = crowded;
      activity = t.container.get<RequestActivity>(APP.RequestActivity);
      ({ server, port } = await listening(t));
    }, 60_000);
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    afterEach(async () => {
      // Here, not only in the outer afterEach, which Jest runs after this one: once the sockets are
      // gone, their streams end and give their places back (before, this waited out its 5 s).
      closeOpen();
      await until(() => activity.streams === 0);
      expect(activity.streams).toBe(0);
    });

    it('answers a concurrent stream of one key beyond its number with 429, while other keys stream and look up', async () => {
      const [greedy, other] = [await t.tokenWith(['read']), await t.tokenWith(['read'])];
      const held = await stalledStreams(port, greedy, PER_KEY);
      expect(held.map((answer) => answer.status)).toEqual([200, 200]);

      const beyond = await rawGet(port, greedy, '/people');
      open.push(beyond.socket);
      expect(beyond.status).toBe(429);
      expect(beyond.head).toMatch(/\r\nRetry-After: 5\r\n/i);
      await readAll(beyond);
      expect(jsonBody(beyond)).toEqual({
        errors: [
          'at most 2 unpaged searches run at once for one key; retry after 5 s, or ask for pages with limit and after',
        ],
      });

      // Paged searches and lookups of the same key are not streams.
      const page = await rawGet(port, greedy, '/people?limit=10');
      open.push(page.socket);
      expect(page.status).toBe(200);

      // Another key: its lookup and its own stream are served in full.
      const lookup = await rawGet(port, other, `/people/${ids[0]}`);
      open.push(lookup.socket);
      expect(lookup.status).toBe(200);
      const stream = await rawGet(port, other, '/people');
      open.push(stream.socket);
      expect(stream.status).toBe(200);
      const whole = await readAll(stream);
      expect(whole.complete).toBe(true);
      expect(activity.streams).toBe(PER_KEY);
    }, 60_000);

    it('does not count unpaged lookups by chat_id or email, but counts other searches however short', async () => {
      const token = await t.tokenWith(['read']);
      const chatId = uniqueName('chat');
      const lastName = uniqueName('Lookup');
      await t.addPeople([
        newPerson({
          lastName,
          chatId,
          contacts: [{ kind: 'email', value: `${chatId}@example.org`, label: null }],
        }),
      ]);
      await stalledStreams(port, token, PER_KEY);

      const lookups = await Promise.all(
        [`chat_id=${chatId}`, `email=${chatId}@example.org`, `chat_id=${chatId}&active=no`].map((query) =>
          rawGet(port, token, `/people?${query}`),
        ),
      );
      open.push(...lookups.map((answer) => answer.socket));
      expect(lookups.map((answer) => answer.status)).toEqual([200, 200, 200]);
      await Promise.all(lookups.map(readAll));
      expect(lookups.every((answer) => answer.received().includes(`"chat_id":"${chatId}"`))).toBe(true);

      const byName = await rawGet(port, token, `/people?last_name=${lastName}`);
      open.push(byName.socket);
      expect(byName.status).toBe(429);
    }, 60_000);

    it('answers 429 to every key once the instance runs its number of streams', async () => {
      const [first, second, third] = [
        await t.tokenWith(['read']),
        await t.tokenWith(['read']),
        await t.tokenWith(['read']),
      ];
      await stalledStreams(port, first, PER_KEY);
      await stalledStreams(port, second, PER_INSTANCE - PER_KEY);

      const refused = await rawGet(port, third, '/people');
      open.push(refused.socket);
      expect(refused.status).toBe(429);
      await readAll(refused);
      expect(jsonBody(refused)).toEqual({
        errors: [expect.stringMatching(/^at most 3 unpaged searches run at once on this server;/)],
      });
    }, 60_000);

    it('gives a stream’s place back when its client goes away', async () => {
      const token = await t.tokenWith(['read']);
      const held = await stalledStreams(port, token, PER_KEY);
      held[0].socket.destroy();
      await until(() => activity.streams === PER_KEY - 1);

      const again = await rawGet(port, token, '/people');
      open.push(again.socket);
      expect(again.status).toBe(200);
    }, 60_000);
  });

  describe('a stream past the bound', () => {
    let beside: Beside;
    // Long enough that the place comes back first, however slow the machine.
    beforeAll(async () => {
      beside = await appBeside({ streamPlaceWaitMs: 20_000 });
    }, 60_000);
    afterAll(() => closeBeside(beside));

    it('waits for a place, and is served the place given back', async () => {
      const { t, port } = beside;
      const activity = t.container.get<RequestActivity>(APP.RequestActivity);
      const token = await t.tokenWith(['read']);
      const held = await stalledStreams(port, token, PER_KEY);
      expect(held.map((answer) => answer.status)).toEqual([200, 200]);

      // Its answer comes once it has a place: ask, and see it wait.
      const waiting = rawGet(port, token, '/people');
      await until(() => activity.streamsWaiting === 1);
      expect(activity.streamsWaiting).toBe(1);
      expect(activity.streams).toBe(PER_KEY);

      held[0].socket.destroy();
      const served = await waiting;
      open.push(served.socket);
      expect(served.status).toBe(200);
      expect(served.head).toMatch(/\r\nChanges-Cursor: /i);
      expect(activity.streamsWaiting).toBe(0);
      expect((await readAll(served)).complete).toBe(true);
    }, 60_000);
  });

  describe('a client that stops reading', () => {
    let beside: Beside;
    beforeAll(async () => {
      beside = await appBeside({ streamStallTimeoutMs: 300 });
    }, 60_000);
    afterAll(() => closeBeside(beside));

    it('is cut off, and its stream’s place given back', async () => {
      const { t, port } = beside;
      const token = await t.tokenWith(['read']);
      const stalled = await stalledStreams(port, token, PER_KEY);
      expect(stalled.map((answer) => answer.status)).toEqual([200, 200]);

      // Cut off 300 ms after each stalls: the places come back without a request. Waited for
      // rather than slept on (was a fixed 1.5 s, too short on a busy machine, too long on a quiet one).
      const activity = t.container.get<RequestActivity>(APP.RequestActivity);
      await until(() => activity.streams === 0, 20_000);
      // The key's places are free again.
      const next = await rawGet(port, token, '/people');
      open.push(next.socket);
      expect(next.status).toBe(200);

      // What the first client gets when it reads at last: part of the array, then the end.
      const cut = await readAll(stalled[0]);
      expect(cut.complete).toBe(false);
      expect(cut.body.length).toBeGreaterThan(0);
    }, 60_000);
  });
});
