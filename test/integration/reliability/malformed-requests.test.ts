import { VERSION } from '../../../src/version';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { answerMalformedRequests } from '../../../src/http/malformed-requests';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are and reads the answer until the service closes the connection. */
function sendRaw(port: number, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.end(bytes);
  });
}

describe.each(testDatabases)('requests that are not valid HTTP, on $name', (target) => {
  let t: TestApp;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp(target);
    server = t.app.listen(0, '127.0.0.1');
    answerMalformedRequests(server);
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  it.each([
    ['a request line that is not one', 'GARBAGE\r\n\r\n', 400],
    ['a header line without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n', 400],
    [
      'a Content-Length that is not a number',
      'POST /people/search HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      400,
    ],
    [
      'both Content-Length and chunked',
      'POST /people/search HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      400,
    ],
    ['an unknown HTTP version', 'GET /healthz HTTP/7.0\r\nHost: x\r\n\r\n', 400],
    ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('answers %s with the Error body', async (_title, bytes, status) => {
    const answer = await sendRaw(port, bytes);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers['api-version']).toBe('1.0.0');
    expect(JSON.parse(answer.body)).toEqual({ errors: [expect.any(String)] });
  });

  it('answers a request that asked to close the connection, ignoring the stray bytes after it', async () => {
    const answer = await sendRaw(
      port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n{"stray": 1}',
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok', version: VERSION });
  });

  it('still answers well-formed requests on new connections afterwards', async () => {
    const answer = await sendRaw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok', version: VERSION });
  });
});
