import {
  BackendTracker,
  errorIn,
  FrontendMessages,
  mayChangeSession,
  ProtocolViolation,
  simpleQuery,
} from '../../../../src/infrastructure/embedded/pg-wire';

function typed(type: string, body: Buffer | string): Buffer {
  const content = typeof body === 'string' ? Buffer.from(body) : body;
  const header = Buffer.alloc(5);
  header.write(type);
  header.writeInt32BE(content.length + 4, 1);
  return Buffer.concat([header, content]);
}

function untyped(code: number, body = ''): Buffer {
  const header = Buffer.alloc(8);
  header.writeInt32BE(8 + Buffer.byteLength(body));
  header.writeInt32BE(code, 4);
  return Buffer.concat([header, Buffer.from(body)]);
}

const STARTUP = untyped(196_608, 'user\0postgres\0\0');
const SSL_REQUEST = untyped(80_877_103);
const readyForQuery = (status: string) => typed('Z', status);

/** Every message, from the stream cut into pieces of `size` bytes. */
function readAll(stream: Buffer, size: number): string[] {
  const messages = new FrontendMessages(1024 * 1024);
  const seen: string[] = [];
  for (let offset = 0; offset < stream.length; offset += size) {
    messages.push(stream.subarray(offset, offset + size));
    for (let message = messages.next(); message !== null; message = messages.next()) {
      seen.push(
        'bytes' in message ? `${message.kind}:${Buffer.from(message.bytes).toString('hex')}` : message.kind,
      );
    }
  }
  return seen;
}

describe('cutting what a client sends into messages', () => {
  const query = typed('Q', 'SELECT 1\0');
  const parse = typed('P', `\0${'x'.repeat(300)}\0\0\0`);
  const stream = Buffer.concat([SSL_REQUEST, STARTUP, query, parse, typed('S', ''), typed('X', '')]);

  it('finds the same messages however the bytes are split', () => {
    const expected = [
      'encryption-request',
      `startup:${STARTUP.toString('hex')}`,
      `message:${query.toString('hex')}`,
      `message:${parse.toString('hex')}`,
      `message:${typed('S', '').toString('hex')}`,
      'terminate',
    ];
    for (const size of [1, 3, 7, 64, stream.length]) expect(readAll(stream, size)).toEqual(expected);
  });

  it('refuses a message longer than the limit before it has all arrived, and a protocol it does not know', () => {
    const messages = new FrontendMessages(100);
    messages.push(Buffer.concat([STARTUP, typed('Q', `${'x'.repeat(200)}\0`).subarray(0, 10)]));
    expect(messages.next()).toMatchObject({ kind: 'startup' });
    expect(() => messages.next()).toThrow(ProtocolViolation);

    const old = new FrontendMessages(100);
    old.push(untyped(0x00020000));
    expect(() => old.next()).toThrow('protocol 2.0');
  });
});

describe("following PGlite's answer to the end of a statement", () => {
  // A row whose value holds the very bytes of a ReadyForQuery saying idle.
  const lookalike = typed('D', Buffer.concat([Buffer.from([0, 1, 0, 0, 0, 6]), readyForQuery('I')]));

  function statuses(answer: Buffer, size: number): { idleSeen: boolean; status: string | null } {
    const tracker = new BackendTracker();
    let idleSeen = false;
    for (let offset = 0; offset < answer.length; offset += size) {
      idleSeen = tracker.push(answer.subarray(offset, offset + size)) || idleSeen;
    }
    return { idleSeen, status: tracker.status };
  }

  it.each([1, 2, 5, 1000])('tells idle, in a transaction, or not yet done, in pieces of %i bytes', (size) => {
    const complete = typed('C', 'INSERT 0 1\0');
    expect(statuses(Buffer.concat([lookalike, complete, readyForQuery('I')]), size)).toEqual({
      idleSeen: true,
      status: 'I',
    });
    expect(statuses(Buffer.concat([complete, readyForQuery('T')]), size)).toEqual({
      idleSeen: false,
      status: 'T',
    });
    // A Parse's answer in the middle of a batch: no ReadyForQuery, whatever the row held.
    expect(statuses(Buffer.concat([typed('1', ''), lookalike]), size)).toEqual({
      idleSeen: false,
      status: null,
    });
  });
});

describe("the gate's own statements", () => {
  it('are simple Query messages of the statement, NUL-terminated', () => {
    expect(simpleQuery('RESET ALL')).toEqual(typed('Q', 'RESET ALL\0'));
  });

  it("find the message of an answer's ErrorResponse, after other messages, and nothing in a clean answer", () => {
    const error = typed('E', 'SERROR\0VERROR\0C42704\0Munrecognized configuration parameter "x"\0\0');
    const complete = typed('C', 'SELECT 1\0');
    expect(errorIn(Buffer.concat([complete, error, readyForQuery('I')]))).toBe(
      'unrecognized configuration parameter "x"',
    );
    expect(errorIn(Buffer.concat([complete, readyForQuery('I')]))).toBeNull();
  });
});

describe('which messages may change the session beyond their transaction', () => {
  it.each([
    ["SET search_path = ''"],
    ['set role someone'],
    ['RESET ALL'],
    ["SELECT pg_catalog.set_config('TimeZone', 'UTC', false)"],
    ['SET SESSION AUTHORIZATION someone'],
    ['DISCARD ALL'],
  ])('a Query or a Parse saying %s', (sql) => {
    expect(mayChangeSession(typed('Q', `${sql}\0`))).toBe(true);
    expect(mayChangeSession(typed('P', `\0${sql}\0\0\0`))).toBe(true);
  });

  it('not a plain statement, nor a Bind whose values say SET; always a fast-path function call', () => {
    expect(mayChangeSession(typed('Q', 'SELECT 1\0'))).toBe(false);
    expect(mayChangeSession(typed('B', '\0\0\0\0\0\x01\0\0\0\x03SET\0\0'))).toBe(false);
    expect(mayChangeSession(typed('F', '\0\0\0\x01'))).toBe(true);
  });
});
