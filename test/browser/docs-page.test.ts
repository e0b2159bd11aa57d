import { VERSION } from '../../src/version';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildOpenApiDocument } from '../../src/http/openapi/openapi-document';
import type { Operation } from '../../src/http/openapi/openapi-types';
import { createTestApp, newPerson, type TestApp, uniqueName } from '../support/app';
import { testDatabases } from '../support/databases';
import { documentedOperations } from '../integration/docs/documented-answers';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium';
import { type ShownAnswer, SwaggerUiPage } from './swagger-ui-page';

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

/** The status the page shows, with what it showed instead when it is not the expected one. */
function expectShown(answer: ShownAnswer, status: string): void {
  if (answer.status !== status) {
    throw new Error(`expected ${status}, the page showed ${answer.status}: ${answer.body.slice(0, 500)}`);
  }
}

const hasChromium = CHROMIUM !== undefined;
if (!hasChromium) {
  console.warn(
    'Skipping the /docs browser test: Chromium is not installed (apt-get install chromium-headless-shell, or chromium; .ci/run installs the first).',
  );
}

(hasChromium ? describe : describe.skip)('the /docs page in headless Chromium', () => {
  let t: TestApp;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let opened: { page: Page; requested: string[]; problems: string[] };

  beforeAll(async () => {
    t = await createTestApp(testDatabases[0]);
    server = t.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Playwright gives the browser a fresh profile directory of its own (--user-data-dir) and
    // removes it on close.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
      timeout: 30_000,
    });
    // One page for every test: loading /docs is the slow part, and the tests leave nothing on it
    // that the next one minds (an operation already open stays open; see SwaggerUiPage.open).
    opened = await openDocs();
  }, 60_000);

  afterAll(async () => {
    await opened?.page.close();
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
    // Swagger UI animates opening, closing and its spinner (CSS transitions of 0.15-0.5 s): each
    // click waits for the element to stand still, and every frame of them is painted. Played
    // 1,000 times faster (DevTools' animation speed), they end at once: about 3 s of Chromium's
    // CPU less of some 20, and nothing the page shows or answers changes.
    const devtools = await page.context().newCDPSession(page);
    await devtools.send('Animation.enable');
    await devtools.send('Animation.setPlaybackRate', { playbackRate: 1000 });
    await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.opblock-summary', { timeout: 20_000 });
    return { page, requested, problems };
  }

  it('lists the endpoints, loads nothing from another origin and breaks no content policy', async () => {
    const { page, requested, problems } = opened;
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
  });

  it("shows an operation's parameters and answers when it is opened", async () => {
    const { page, problems } = opened;
    await page.click('#operations-People-getPerson .opblock-summary');
    const details = page.locator('#operations-People-getPerson');
    await details.locator('.parameters').waitFor({ timeout: 10_000 });
    const text = (await details.textContent()) ?? '';
    expect(text).toMatch(/If-None-Match/);
    expect(text).toMatch(/304/);
    expect(text).toMatch(/404/);
    expect(problems).toEqual([]);
  });

  it('runs operations from the page: Authorize, Try it out, Execute, and shows their answers', async () => {
    const lastName = uniqueName('Herschel');
    const [personId] = await t.addPeople([
      newPerson({
        lastName,
        chatId: uniqueName('chat'),
        contacts: [{ kind: 'email', value: `${uniqueName('c')}@example.org`, label: 'home' }],
        memberships: [{ club: uniqueName('Club'), kind: 'full', startDate: '2024-01-01', endDate: null }],
      }),
    ]);
    const account = await t.createAccount({ permissions: ['read', 'write', 'manage'] });
    const token = await t.issueToken(account.username, account.password);

    const { page, problems } = opened;
    const docs = new SwaggerUiPage(page);
    await docs.authorize({ bearer: token });
    await docs.authorize({ username: account.username, password: account.password });

    const tried = new Map<string, ShownAnswer>();
    const run = async (tag: string, operationId: string, input?: Parameters<SwaggerUiPage['execute']>[2]) => {
      const answer = await docs.execute(tag, operationId, input);
      tried.set(operationId, answer);
      return answer;
    };
    const json = (answer: ShownAnswer) => JSON.parse(answer.body);

    const search = await run('People', 'searchPeople', {
      parameters: { query: { last_name: lastName, has_chat: 'true' } },
    });
    expectShown(search, '200');
    expect(search.url).toMatch(/\/people\?.*has_chat=true/);
    expect(json(search).map((person: { id: number }) => person.id)).toEqual([personId]);

    const byBody = await run('People', 'searchPeopleByBody', {
      body: JSON.stringify({ last_name: lastName }),
    });
    expectShown(byBody, '200');
    expect(json(byBody).map((person: { id: number }) => person.id)).toEqual([personId]);

    const read = await run('People', 'getPerson', { parameters: { path: { id: String(personId) } } });
    expectShown(read, '200');
    expect(json(read)).toMatchObject({ id: personId, last_name: lastName });
    expect(read.headers).toMatch(/etag: "v1-/);
    expect(read.headers).toMatch(/ratelimit: "\d+-in-1min"; r=\d+; t=\d+/);

    // The page proposes the operation's own example bodies; the form-encoded one is typed in.
    const path = { id: String(personId) };
    const nested = await run('People', 'updatePerson', { parameters: { path }, example: 'Nested object' });
    expectShown(nested, '200');
    expect(json(nested)).toMatchObject({ id: personId });
    const form = await run('People', 'updatePerson', {
      parameters: { path },
      contentType: 'application/x-www-form-urlencoded',
      form: { 'person[first_name]': 'Caroline', 'person[last_name]': 'Herschel', 'person[chat_id]': 'U0CH1' },
    });
    expectShown(form, '200');
    expect(json(form)).toMatchObject({ id: personId, first_name: 'Caroline', chat_id: 'U0CH1' });

    // A spreadsheet typed in as the request body (text/csv), checked without writing.
    const imported = await run('Secretary', 'importPeople', {
      parameters: { query: { dry_run: 'true' } },
      contentType: 'text/csv',
      body: `member_number,first_name,last_name\n${uniqueName('N')},Docs,Page\n`,
    });
    expectShown(imported, '200');
    expect(json(imported)).toMatchObject({ dry_run: true, summary: { added: 1 } });

    const issued = await run('Keys', 'issueKey');
    expectShown(issued, '201');
    expect(json(issued).token).toMatch(/^mdk_/);

    const probe = await run('Service', 'liveness');
    expectShown(probe, '200');
    expect(json(probe)).toEqual({ status: 'ok', version: VERSION });

    // Each kind of input the document gives an operation was tried above: credentials of each
    // scheme or none, each place of parameter, each type of body. That every operation can be
    // called as the document describes it is documented-answers.test's, in-process: each one tried
    // here costs Chromium about 2 s of CPU, mostly Swagger UI's own rendering.
    const operations = documentedOperations(buildOpenApiDocument()).map(({ operation }) => operation);
    const kinds = (operation: Operation) => [
      ...(operation.security.length === 0 ? ['no credentials'] : operation.security.flatMap(Object.keys)),
      ...(operation.parameters ?? []).map((parameter) =>
        'in' in parameter ? `${parameter.in} parameter` : '?',
      ),
      ...Object.keys(operation.requestBody?.content ?? {}).map((type) => `${type} body`),
    ];
    const triedKinds = operations.filter((operation) => tried.has(operation.operationId)).flatMap(kinds);
    expect(new Set(triedKinds)).toEqual(new Set(operations.flatMap(kinds)));
    expect(problems).toEqual([]);
  }, 180_000);
});
