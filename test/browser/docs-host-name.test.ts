import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { createTestApp, type TestApp } from '../support/app';
import { testDatabases } from '../support/databases';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium';

// How volunteers reach the service: a name on the local network, plain HTTP. Chromium treats
// 127.0.0.1 and localhost as secure origins and never upgrades their requests, so only a real host
// name shows what a browser on the network does. The name resolves to loopback inside this browser
// only: nothing outside the test is asked.
const HOST = 'clubpi.lan';

(CHROMIUM === undefined ? describe.skip : describe)(
  'the /docs page reached by a host name over plain HTTP',
  () => {
    let t: TestApp;
    let server: Server;
    let browser: Browser;

    beforeAll(async () => {
      t = await createTestApp(testDatabases[0]);
      server = t.app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
        headless: true,
        timeout: 30_000,
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => server?.close(resolve));
      await t?.close();
    });

    it('renders the reference: its files are fetched over HTTP from that host, none is upgraded to HTTPS', async () => {
      const origin = `http://${HOST}:${(server.address() as AddressInfo).port}`;
      const page = await browser.newPage();
      const requested: string[] = [];
      const failed: string[] = [];
      page.on('request', (req) => requested.push(req.url()));
      page.on('requestfailed', (req) => failed.push(`${req.url()}: ${req.failure()?.errorText}`));
      try {
        const answer = await page.goto(`${origin}/docs`, { waitUntil: 'load' });
        expect(answer?.status()).toBe(200);
        // Swagger UI drew the operations: the page is not blank.
        await page.waitForSelector('.opblock-summary', { timeout: 20_000 });
        await expect(page.textContent('.info .title')).resolves.toMatch(/Membership Directory/);
        expect(failed).toEqual([]);
        expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
        expect(requested).toEqual(
          expect.arrayContaining([`${origin}/docs/assets/swagger-ui-bundle.js`, `${origin}/openapi.json`]),
        );
      } finally {
        await page.close();
      }
    }, 60_000);
  },
);
