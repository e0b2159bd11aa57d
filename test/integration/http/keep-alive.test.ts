import { type AddressInfo, connect, type Socket } from 'node:net';
import { createHttpServer, type HttpServer } from '../../../src/http/http-server';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw connection that collects what the server sends and notices when it closes. */
function openConnection(
  port: number,
): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, received: () => text, closed: () => closed }));
  });
}

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  for (let waited = 0; !condition() && waited < ms; waited += 10) await pause(10);
}

const answers = (text: string) => text.match(/HTTP\/1\.1 \d{3}/g) ?? [];

// Connection handling is the same whatever the database: PGlite suffices.
describe.each(testDatabases.slice(0, 1))('keep-alive connections on $name', (target) => {
  let t: TestApp;
  let http: HttpServer;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp(target);
    http = createHttpServer(t.app, { keepAliveTimeoutS: t.config.keepAliveTimeoutS });
    await new Promise<void>((resolve) => http.server.listen(0, '127.0.0.1', resolve));
    port = (http.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    http.server.closeAllConnections();
    await new Promise((resolve) => http.server.close(resolve));
    await t.close();
  });

  it('keeps an idle connection open longer than Node’s 5 s, and says for how long', async () => {
    const connection = await openConnection(port);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
    await until(() => connection.received().includes('"ok"'));
    expect(connection.received()).toMatch(/\r\nKeep-Alive: timeout=65\r\n/);

    await pause(5500);
    expect(connection.closed()).toBe(false);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
    await until(() => answers(connection.received()).length === 2);
    expect(answers(connection.received())).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    connection.socket.destroy();
  }, 15_000);

  it('once closing, answers the request in flight and later ones with Connection: close', async () => {
    // An authenticated request whose body is still to come is in flight (the body is read only
    // after the credentials); the other connection is idle.
    const token = await t.tokenWith(['read']);
    const inFlight = await openConnection(port);
    inFlight.socket.write(
      `POST /people/search HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n`,
    );
    const idle = await openConnection(port);
    idle.socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
    await until(() => idle.received().includes('"ok"'));
    expect(idle.received()).toMatch(/\r\nConnection: keep-alive\r\n/);

    http.closeConnectionsAfterAnswers();
    inFlight.socket.write('{}');
    idle.socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
    await until(() => inFlight.closed() && idle.closed());

    // What matters is how the connection ends, after the whole answer.
    expect(inFlight.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(inFlight.received()).toMatch(/\r\nConnection: close\r\n/);
    expect(inFlight.closed()).toBe(true);
    const second = idle.received().slice(idle.received().lastIndexOf('HTTP/1.1'));
    expect(second).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/\r\nConnection: close\r\n/);
    expect(idle.closed()).toBe(true);
  });
});
