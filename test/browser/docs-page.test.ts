import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../support/app';
import { testDatabases } from '../support/databases';

const CHROMIUM = '/usr/bin/chromium';
// As root on a machine with no outside network: no sandbox, and none of Chromium's own traffic.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOT = path.resolve(__dirname, '../../test-artifacts/docs.png');

const ENDPOINTS = [
  'GET /people',
  'POST /people/search',
  'GET /people/{id}',
  'PATCH /people/{id}',
  'POST /keys',
  'GET /keys',
  'DELETE /keys',
  'DELETE /keys/{id}',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /openapi.json',
];

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`Skipping the /docs browser test: ${CHROMIUM} is not installed (.ci/run installs it).`);
}

(hasChromium ? describe : describe.skip)('the /docs page in headless Chromium', () => {
  let t: TestApp;
  let server: Server;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestApp(testDatabases[0]);
    server = t.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  /** Opens /docs, recording every URL the page asks for and every error it reports. */
  async function openDocs(): Promise<{ page: Page; requested: string[]; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (req) => requested.push(req.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.opblock-summary', { timeout: 20_000 });
    return { page, requested, problems };
  }

  it('lists the endpoints, loads nothing from another origin and breaks no content policy', async () => {
    const { page, requested, problems } = await openDocs();
    const listed = await page.$$eval('.opblock-summary', (summaries) =>
      summaries.map(
        (summary) =>
          `${summary.querySelector('.opblock-summary-method')?.textContent?.trim()} ${summary
            .querySelector('.opblock-summary-path')
            ?.getAttribute('data-path')}`,
      ),
    );
    expect(listed).toEqual(expect.arrayContaining(ENDPOINTS));
    await expect(page.textContent('.info .title')).resolves.toMatch(/Membership Directory/);

    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${origin}/openapi.json`]));
    // A Content-Security-Policy refusal or a script error shows up here.
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows an operation's parameters and answers when it is opened", async () => {
    const { page, problems } = await openDocs();
    await page.click('#operations-People-getPerson .opblock-summary');
    const details = page.locator('#operations-People-getPerson');
    await details.locator('.parameters').waitFor({ timeout: 10_000 });
    const text = (await details.textContent()) ?? '';
    expect(text).toMatch(/If-None-Match/);
    expect(text).toMatch(/304/);
    expect(text).toMatch(/404/);
    expect(problems).toEqual([]);
    await page.close();
  });
});
