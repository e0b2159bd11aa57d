import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '../../../bin/wait-ready.js');
const { readyzUrl } = require(SCRIPT) as { readyzUrl: (env: Record<string, string>) => string };

/** Runs bin/wait-ready.js as systemd's ExecStartPost would, to its exit. */
function waitReady(env: Record<string, string>, seconds: string) {
  return new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [SCRIPT, seconds], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('close', (code) => resolve({ code, stderr, ms: Date.now() - started }));
  });
}

describe('bin/wait-ready.js, which holds `systemctl start` until /readyz answers', () => {
  let server: Server;
  let ready = false;
  let asked = 0;
  /** Answers 200 from the ask after this many (null: only as `ready` says). */
  let readyAfter: number | null = null;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      asked += 1;
      if (readyAfter !== null && asked > readyAfter) ready = true;
      res.statusCode = req.url === '/readyz' && ready ? 200 : 503;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('asks loopback when the service listens on every interface, and HOST when it is set', () => {
    expect(readyzUrl({})).toBe('http://127.0.0.1:3000/readyz');
    expect(readyzUrl({ PORT: '8080', HOST: '0.0.0.0' })).toBe('http://127.0.0.1:8080/readyz');
    expect(readyzUrl({ HOST: '::' })).toBe('http://[::1]:3000/readyz');
    expect(readyzUrl({ HOST: '10.0.0.5' })).toBe('http://10.0.0.5:3000/readyz');
    expect(readyzUrl({ HOST: 'fd00::2' })).toBe('http://[fd00::2]:3000/readyz');
  });

  it('returns 0 once /readyz answers 200, after the 503s of a service still starting', async () => {
    ready = false;
    asked = 0;
    // Ready once it has been asked twice, not after a time: a busy machine may start the script late.
    readyAfter = 2;
    const run = await waitReady({ PORT: String(port), HOST: '127.0.0.1' }, '10');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(asked).toBe(3);
    expect(run.ms).toBeLessThan(5000);
  });

  it('gives up with 1 and one line after its time when /readyz never answers 200', async () => {
    ready = false;
    readyAfter = null;
    const run = await waitReady({ PORT: String(port) }, '1');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `wait-ready: http://127.0.0.1:${port}/readyz did not answer 200 within 1 s (last: 503)\n`,
    );
  });
});
