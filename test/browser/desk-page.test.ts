import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import request from 'supertest';
import type { NewPerson } from '../../src/application/ports/person-repository';
import { createTestApp, newPerson, type TestAccount, type TestApp, uniqueName } from '../support/app';
import { readStrictly } from '../support/csv-readers';
import { testDatabases } from '../support/databases';

// As the docs-page test: Debian's headless shell when installed, else the full browser.
const CHROMIUM = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'].find((file) =>
  existsSync(file),
);
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
// A phone's width: every step is shown, checked and photographed at it.
const VIEWPORT = { width: 390, height: 844 };
const SCREENSHOTS = path.resolve(__dirname, '../../test-artifacts/desk-page');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const DAY_MS = 24 * 60 * 60 * 1000;

/** YYYY-MM-DD, `days` from today (UTC, the directory's default time zone). */
function day(days: number): string {
  return new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
}

const hasChromium = CHROMIUM !== undefined;
if (!hasChromium) {
  console.warn(
    'Skipping the /desk browser test: Chromium is not installed (apt-get install chromium-headless-shell, or chromium).',
  );
}

(hasChromium ? describe : describe.skip)("the secretary's page /desk in headless Chromium", () => {
  let t: TestApp;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let secretary: TestAccount;
  /** The page most tests share: signed in once as a secretary holding read, write and manage. */
  let desk: Page;
  let problems: string[];
  let shot = 0;

  beforeAll(async () => {
    // The page itself is built by Jest's global setup, from the current sources.
    // Thirty days of grace, so that the page has someone in grace to show (SPEC §10).
    t = await createTestApp(testDatabases[0], { env: { GRACE_DAYS: '30' } });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
      timeout: 30_000,
    });
    context = await browser.newContext({ viewport: VIEWPORT, acceptDownloads: true });
    context.setDefaultTimeout(10_000);
    // This run's screenshots only.
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
    problems = [];
    secretary = await t.createAccount({ permissions: ['read', 'write', 'manage'] });
    desk = await openDesk();
    await signIn(desk, secretary);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  /** What a test provokes on purpose (a refused inline script, a cut network), not counted as a problem. */
  let provoked: RegExp | null = null;

  afterEach(() => {
    // A script error or a refusal of the Content-Security-Policy shows up here.
    const seen = problems.filter((problem) => provoked === null || !provoked.test(problem));
    problems = [];
    provoked = null;
    expect(seen).toEqual([]);
  });

  async function openDesk(): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // A 4xx or 5xx the page was asked to show is logged by Chromium too; that is not a problem.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(message.text());
    });
    page.on('dialog', (dialog) => {
      problems.push(`a dialog opened: ${dialog.message()}`);
      dialog.dismiss().catch(() => undefined);
    });
    await page.goto(`${origin}/desk`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    return page;
  }

  async function signIn(page: Page, account: TestAccount): Promise<void> {
    await page.getByLabel('Username').fill(account.username);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  /**
   * One step: a screenshot kept under test-artifacts/desk-page, and the checks every view must
   * pass: axe-core finds nothing serious or critical, and nothing is wider than the phone.
   */
  async function step(page: Page, name: string): Promise<void> {
    shot += 1;
    await page.screenshot({
      path: path.join(SCREENSHOTS, `${String(shot).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    });
    if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const { axe, document } = globalThis as any;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations
        .filter((violation: any) => violation.impact === 'serious' || violation.impact === 'critical')
        .map(
          (violation: any) =>
            `${violation.id}: ${violation.nodes.map((node: any) => node.target.join(' ')).join(', ')}`,
        );
    });
    expect(`${name}: ${violations.join('; ')}`).toBe(`${name}: `);
    // What sticks out past the screen's right edge, if anything: none of it should.
    const wider = await page.evaluate(() => {
      const { document, innerWidth } = globalThis as any;
      return (
        [...document.querySelectorAll('body *')]
          // A wide table scrolls in its own frame (.table-wrap), which is what must fit.
          .filter((element: any) => element.closest('.table-wrap table') === null)
          .filter((element: any) => element.getBoundingClientRect().right > innerWidth + 0.5)
          .map(
            (element: any) =>
              `${element.tagName.toLowerCase()}.${element.className} ${element.getBoundingClientRect().right}`,
          )
      );
    });
    expect(`${name}: ${wider.join(', ')}`).toBe(`${name}: `);
    // And no text running past the edge either.
    const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
    expect(`${name} is ${width} px wide`).toBe(`${name} is ${VIEWPORT.width} px wide`);
  }

  /** Waits until the page says `text` in a live region: an alert (errors) or a status (news). */
  async function said(page: Page, role: 'alert' | 'status', text: RegExp | string): Promise<void> {
    await page.getByRole(role).filter({ hasText: text }).first().waitFor();
  }

  async function tab(page: Page, name: 'Search' | 'Renewals' | 'Import' | 'Export'): Promise<void> {
    await page.getByRole('navigation', { name: 'Tasks' }).getByRole('button', { name }).click();
  }

  /** Opens a person from the search, by a name filter that finds only them. */
  async function openPerson(page: Page, person: { firstName: string; lastName: string }): Promise<void> {
    await tab(page, 'Search');
    await page.getByLabel('Name', { exact: true }).fill(person.lastName);
    await page.getByRole('button', { name: 'Search', exact: true }).last().click();
    await page.getByRole('button', { name: `${person.firstName} ${person.lastName}` }).click();
    await page.getByRole('heading', { level: 2, name: `${person.firstName} ${person.lastName}` }).waitFor();
  }

  async function addPerson(fields: Partial<NewPerson>): Promise<{ id: number } & NewPerson> {
    const person = newPerson(fields);
    const [id] = await t.addPeople([person]);
    return { id, ...person };
  }

  it('signs in by keyboard with a key for a day kept in memory only, and revokes it on sign-out', async () => {
    const account = await t.createAccount({ permissions: ['read', 'write', 'manage'] });
    const page = await openDesk();
    // Issue 31: the page loads in under a second (about 0.2 s measured; docs/performance.md).
    const loaded = await page.evaluate(
      () => (globalThis as any).performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
    );
    expect(loaded).toBeLessThan(1000);
    await step(page, 'sign-in');

    // Focus starts in the username field; Tab and Enter do the rest.
    await page.keyboard.type(account.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await page.keyboard.press('Enter');
    await said(page, 'alert', /Not signed in \(401\).*wrong username or password/);
    await step(page, 'sign-in-refused');

    await page.getByLabel('Password').fill(account.password);
    const issued = page.waitForResponse(
      (response) => response.url() === `${origin}/keys` && response.request().method() === 'POST',
    );
    await page.getByLabel('Password').press('Enter');
    const response = await issued;
    expect(response.status()).toBe(201);
    expect(JSON.parse(response.request().postData() ?? '{}')).toMatchObject({ expires_in_days: 1 });
    const key = await response.json();
    expect(Date.parse(key.expires_at) - Date.now()).toBeLessThanOrEqual(DAY_MS);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await expect(page.getByText(`Signed in as ${account.username}`).textContent()).resolves.toMatch(
      /may: read, write, manage/,
    );
    // Nothing of the key outside the page's memory.
    await expect(context.cookies()).resolves.toEqual([]);
    await expect(
      page.evaluate(() => {
        const { document, localStorage, sessionStorage } = globalThis as any;
        return [document.cookie, localStorage.length, sessionStorage.length];
      }),
    ).resolves.toEqual(['', 0, 0]);
    await expect(
      request(t.app).get('/keys').set('Authorization', `Bearer ${key.token}`),
    ).resolves.toMatchObject({
      status: 200,
    });
    await step(page, 'signed-in');

    const revoked = page.waitForResponse(
      (answer) => answer.url() === `${origin}/keys` && answer.request().method() === 'DELETE',
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect((await revoked).status()).toBe(200);
    await said(page, 'status', /Signed out\. The key this page used is revoked/);
    await expect(
      request(t.app).get('/keys').set('Authorization', `Bearer ${key.token}`),
    ).resolves.toMatchObject({
      status: 401,
    });
    await step(page, 'signed-out');
    await page.close();
  });

  it('returns to the sign-in form, saying why, when the service stops accepting the key', async () => {
    const account = await t.createAccount({ permissions: ['read'] });
    const page = await openDesk();
    const issued = page.waitForResponse((answer) => answer.url() === `${origin}/keys`);
    await signIn(page, account);
    const { token } = await (await issued).json();
    // Revoked elsewhere (another tab, an operator) while the page is open.
    await request(t.app).delete('/keys').set('Authorization', `Bearer ${token}`).expect(200);
    await page.getByLabel('Name', { exact: true }).fill('anyone');
    await page.getByLabel('Name', { exact: true }).press('Enter');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await said(page, 'alert', /Signed out: the service no longer accepts the key \(401\)/);
    await step(page, 'key-refused');
    await page.close();
  });

  it('says which permissions a read-only key lacks and offers nothing that needs them', async () => {
    const reader = await t.createAccount({ permissions: ['read'] });
    const person = await addPerson({ lastName: uniqueName('Readonly') });
    const page = await openDesk();
    await signIn(page, reader);
    const note = (await page.locator('.permissions').textContent()) ?? '';
    expect(note).toMatch(/may: read\./);
    expect(note).toMatch(/lacks write/);
    expect(note).toMatch(/lacks manage/);
    expect(note).toContain(`npm run cli -- accounts grant ${reader.username} manage`);
    await step(page, 'read-only-key');

    await openPerson(page, person);
    await expect(page.getByText('Correcting needs the write permission').count()).resolves.toBe(1);
    await expect(page.getByText('history of changes needs the manage permission').count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: /Save|Erase|Download/ }).count()).resolves.toBe(0);
    await step(page, 'read-only-person');

    await tab(page, 'Import');
    await expect(page.getByText('Importing needs the manage permission').count()).resolves.toBe(1);
    await expect(page.getByLabel(/Roster file/).count()).resolves.toBe(0);
    await tab(page, 'Export');
    await expect(page.getByText('Exporting needs the manage permission').count()).resolves.toBe(1);
    await page.close();
  });

  it('searches by name, email, member number and current or not, and opens a person by keyboard', async () => {
    const surname = uniqueName('Herschel');
    const email = `${uniqueName('caroline')}@example.org`;
    const caroline = await addPerson({
      firstName: 'Caroline',
      lastName: surname,
      memberNumber: uniqueName('M'),
      contacts: [{ kind: 'email', value: email, label: null }],
      memberships: [{ club: 'Astronomers', kind: 'full', startDate: day(-300), endDate: day(300) }],
    });
    const william = await addPerson({
      firstName: 'William',
      lastName: surname,
      memberNumber: uniqueName('M'),
      memberships: [{ club: 'Astronomers', kind: 'full', startDate: day(-900), endDate: day(-400) }],
    });
    await tab(desk, 'Search');
    const results = () => desk.locator('ul.people li button').allTextContents();

    await desk.getByLabel('Name', { exact: true }).fill(surname);
    await desk.getByLabel('Name', { exact: true }).press('Enter');
    await desk.getByText('2 people found').waitFor();
    expect(await results()).toEqual([`Caroline ${surname}`, `William ${surname}`]);
    await step(desk, 'search-by-name');

    await desk.getByLabel('Name', { exact: true }).fill(`William ${surname}`);
    await desk.getByLabel('Name', { exact: true }).press('Enter');
    await desk.getByText('1 person found').waitFor();
    expect(await results()).toEqual([`William ${surname}`]);

    await desk.getByLabel('Name', { exact: true }).fill('');
    await desk.getByLabel('Email', { exact: true }).fill(email.toUpperCase());
    await desk.getByLabel('Email', { exact: true }).press('Enter');
    await desk.getByText('1 person found').waitFor();
    expect(await results()).toEqual([`Caroline ${surname}`]);

    await desk.getByLabel('Email', { exact: true }).fill('');
    await desk.getByLabel('Member number', { exact: true }).fill(william.memberNumber as string);
    await desk.getByLabel('Member number', { exact: true }).press('Enter');
    await desk.getByText('1 person found').waitFor();
    expect(await results()).toEqual([`William ${surname}`]);

    await desk.getByLabel('Member number', { exact: true }).fill('');
    await desk.getByLabel('Name', { exact: true }).fill(surname);
    await desk.getByLabel('Membership', { exact: true }).selectOption('yes');
    await desk.getByLabel('Name', { exact: true }).press('Enter');
    await desk.getByText('1 person found').waitFor();
    expect(await results()).toEqual([`Caroline ${surname}`]);
    await desk.getByLabel('Membership', { exact: true }).selectOption('no');
    await desk.getByLabel('Name', { exact: true }).press('Enter');
    await desk.locator('ul.people li button', { hasText: 'William' }).waitFor();
    expect(await results()).toEqual([`William ${surname}`]);
    await step(desk, 'search-not-current');

    // By keyboard: the result is a button; Enter opens the person and the focus goes to their name.
    await desk.getByRole('button', { name: `William ${surname}` }).focus();
    await desk.keyboard.press('Enter');
    const heading = desk.getByRole('heading', { level: 2, name: `William ${surname}` });
    await heading.waitFor();
    await expect(
      heading.evaluate((element) => element === (globalThis as any).document.activeElement),
    ).resolves.toBe(true);
    expect(caroline.id).toBeLessThan(william.id);
  });

  it('opens a person: contacts, memberships current or ended, and their history of changes', async () => {
    const person = await addPerson({
      firstName: 'Maria',
      lastName: uniqueName('Mitchell'),
      memberNumber: uniqueName('M'),
      chatId: uniqueName('chat'),
      contacts: [
        { kind: 'email', value: `${uniqueName('maria')}@example.org`, label: 'home' },
        { kind: 'address', value: '1 Vassar Street\nPoughkeepsie', label: null },
      ],
      memberships: [
        { club: 'Nantucket Atheneum', kind: 'full', startDate: day(-2000), endDate: day(-1000) },
        { club: 'Nantucket Atheneum', kind: 'honorary', startDate: day(-999), endDate: null },
      ],
    });
    // A change through the API, so that there is history to show.
    const writer = await t.tokenWith(['read', 'write']);
    await request(t.app)
      .patch(`/people/${person.id}`)
      .set('Authorization', `Bearer ${writer}`)
      .send({ person: { first_name: 'Maria A.' } })
      .expect(200);

    await openPerson(desk, { firstName: 'Maria A.', lastName: person.lastName });
    const text = (await desk.locator('main').textContent()) ?? '';
    expect(text).toContain(person.memberNumber as string);
    expect(text).toContain(person.chatId as string);
    expect(text).toContain(person.contacts[0].value);
    expect(text).toContain('1 Vassar Street');
    const rows = await desk.getByRole('table', { name: 'Memberships' }).locator('tbody tr').allInnerTexts();
    expect(rows.map((row) => row.split('\t').map((cell) => cell.trim()))).toEqual([
      ['Ended', 'Nantucket Atheneum', 'full', day(-2000), day(-1000)],
      ['Current', 'Nantucket Atheneum', 'honorary', day(-999), 'open-ended'],
    ]);
    const history = desk.getByRole('table', { name: /Audit entries/ });
    await history.waitFor();
    await expect(history.textContent()).resolves.toMatch(/person\.update.*first_name.*Maria.*Maria A\./);
    await step(desk, 'person');
  });

  it('corrects names and chat ID with If-Match, and shows the fresh values when someone changed them first', async () => {
    const person = await addPerson({ firstName: 'Annie', lastName: uniqueName('Cannon'), chatId: null });
    await openPerson(desk, person);
    await desk.getByLabel('First name', { exact: true }).fill('Annie Jump');
    await desk.getByLabel('Chat ID', { exact: true }).fill('U0ANNIE');
    const saved = desk.waitForResponse((answer) => answer.request().method() === 'PATCH');
    await desk.getByRole('button', { name: 'Save the correction' }).click();
    const answer = await saved;
    expect(answer.request().headers()['if-match']).toMatch(/^"v1-/);
    expect(answer.status()).toBe(200);
    await desk.getByRole('heading', { level: 2, name: `Annie Jump ${person.lastName}` }).waitFor();
    await said(desk, 'status', 'Saved.');
    await step(desk, 'correction-saved');

    // Someone else renames her while the page shows the old values.
    const other = await t.tokenWith(['read', 'write']);
    const newLast = uniqueName('Cannon-Hale');
    await request(t.app)
      .patch(`/people/${person.id}`)
      .set('Authorization', `Bearer ${other}`)
      .send({ person: { last_name: newLast } })
      .expect(200);
    await desk.getByLabel('Chat ID', { exact: true }).fill('U0JUMP');
    await desk.getByRole('button', { name: 'Save the correction' }).click();
    await said(desk, 'alert', /Not saved \(412\).*Someone else changed this person.*not saved/);
    await expect(desk.getByLabel('Last name', { exact: true }).inputValue()).resolves.toBe(newLast);
    await expect(desk.getByLabel('Chat ID', { exact: true }).inputValue()).resolves.toBe('U0ANNIE');
    await desk.getByRole('heading', { level: 2, name: `Annie Jump ${newLast}` }).waitFor();
    await step(desk, 'correction-conflict');
    const stored = await request(t.app).get(`/people/${person.id}`).set('Authorization', `Bearer ${other}`);
    expect(stored.body).toMatchObject({ first_name: 'Annie Jump', last_name: newLast, chat_id: 'U0ANNIE' });
  });

  it('lists who is ending within a month by default and downloads the list as CSV', async () => {
    const surname = uniqueName('Renew');
    const club = uniqueName('Club');
    const soon = await addPerson({
      firstName: 'Soon',
      lastName: surname,
      memberNumber: uniqueName('M'),
      contacts: [
        { kind: 'email', value: `${uniqueName('soon')}@example.org`, label: null },
        { kind: 'address', value: '3 Lyra Row, Flat "B"\nEastfield', label: null },
      ],
      memberships: [{ club, kind: 'full', startDate: day(-300), endDate: day(10) }],
    });
    await addPerson({
      firstName: 'Later',
      lastName: surname,
      memberships: [{ club, kind: 'full', startDate: day(-300), endDate: day(60) }],
    });
    await addPerson({
      firstName: 'Renewed',
      lastName: surname,
      memberships: [
        { club, kind: 'full', startDate: day(-300), endDate: day(10) },
        { club, kind: 'full', startDate: day(11), endDate: day(400) },
      ],
    });
    await tab(desk, 'Renewals');
    const date = desk.getByLabel('Membership ending on or before');
    const inAMonth = new Date();
    inAMonth.setMonth(inAMonth.getMonth() + 1);
    await expect(date.inputValue()).resolves.toBe(inAMonth.toISOString().slice(0, 10));
    await desk.getByRole('button', { name: 'Show who is ending' }).click();
    await desk.getByRole('heading', { name: /members? ending by/ }).waitFor();
    const listed = await desk.locator('ul.people li').allTextContents();
    expect(listed.filter((line) => line.includes(surname))).toEqual([
      expect.stringContaining(`Soon ${surname}`),
    ]);
    expect(listed.find((line) => line.includes(surname))).toContain(`until ${day(10)}`);
    await step(desk, 'renewals');

    const downloading = desk.waitForEvent('download');
    await desk.getByRole('button', { name: 'Download the list as CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^renewals-before-\d{4}-\d{2}-\d{2}\.csv$/);
    // Spelled as the export spells CSV: a byte order mark, and a two-line address in one cell.
    const csv = readStrictly(readFileSync(await download.path()));
    expect(csv[0]).toEqual([
      'member_number',
      'first_name',
      'last_name',
      'email',
      'phone',
      'address',
      'club',
      'end_date',
    ]);
    expect(csv.filter((row) => row.includes(surname))).toEqual([
      [soon.memberNumber, 'Soon', surname, soon.contacts[0].value, '', soon.contacts[1].value, club, day(10)],
    ]);
  });

  it('lists who is in grace beside the renewals, downloads that list, and searches by standing', async () => {
    const surname = uniqueName('Grace');
    const lingering = await addPerson({
      firstName: 'Lingering',
      lastName: surname,
      memberNumber: uniqueName('M'),
      contacts: [{ kind: 'email', value: `${uniqueName('lingering')}@example.org`, label: null }],
      memberships: [{ club: 'Harvard', kind: 'full', startDate: day(-300), endDate: day(-5) }],
    });
    await addPerson({
      firstName: 'Gone',
      lastName: surname,
      memberships: [{ club: 'Harvard', kind: 'full', startDate: day(-300), endDate: day(-40) }],
    });
    await tab(desk, 'Renewals');
    await desk.getByRole('button', { name: 'Show who is in grace' }).click();
    await desk.getByRole('heading', { name: /members? in grace$/ }).waitFor();
    const listed = await desk.locator('.in-grace ul.people li').allTextContents();
    expect(listed.filter((line) => line.includes(surname))).toEqual([
      expect.stringContaining(`Lingering ${surname}`),
    ]);
    expect(listed.find((line) => line.includes(surname))).toContain(`in grace until ${day(25)}`);
    await step(desk, 'in-grace');

    const downloading = desk.waitForEvent('download');
    await desk.getByRole('button', { name: 'Download the grace list as CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('in-grace.csv');
    const csv = readStrictly(readFileSync(await download.path()));
    expect(csv[0]).toEqual([
      'member_number',
      'first_name',
      'last_name',
      'email',
      'phone',
      'address',
      'grace_until',
    ]);
    expect(csv.filter((row) => row.includes(surname))).toEqual([
      [lingering.memberNumber, 'Lingering', surname, lingering.contacts[0].value, '', '', day(25)],
    ]);

    await tab(desk, 'Search');
    await desk.getByLabel('Membership', { exact: true }).selectOption('');
    await desk.getByLabel('Name', { exact: true }).fill(surname);
    await desk.getByLabel('Standing', { exact: true }).selectOption('grace');
    await desk.getByLabel('Name', { exact: true }).press('Enter');
    await desk.getByText('1 person found').waitFor();
    const found = await desk.locator('ul.people li').allTextContents();
    expect(found).toEqual([expect.stringContaining('in grace')]);
    expect(found[0]).toContain(`Lingering ${surname}`);
    await desk.getByLabel('Standing', { exact: true }).selectOption('lapsed');
    await desk.getByLabel('Name', { exact: true }).press('Enter');
    await desk.locator('ul.people li button', { hasText: 'Gone' }).waitFor();
    expect(await desk.locator('ul.people li button').allTextContents()).toEqual([`Gone ${surname}`]);
    await desk.getByLabel('Standing', { exact: true }).selectOption('');
    await step(desk, 'search-by-standing');
  });

  it('imports a roster: the dry run shows every change, apply writes it, and a bad file names row and column', async () => {
    const number = uniqueName('M');
    const existing = await addPerson({ firstName: 'Henrietta', lastName: 'Swan', memberNumber: number });
    const newcomer = uniqueName('Leavitt');
    const roster = [
      'member_number,first_name,last_name,club,kind,start_date,end_date',
      `${number},Henrietta,Leavitt,Harvard,full,2024-01-01,`,
      `${uniqueName('M')},Williamina,${newcomer},Harvard,full,2024-01-01,`,
      '',
    ].join('\n');
    await tab(desk, 'Import');
    await desk
      .getByLabel(/Roster file/)
      .setInputFiles({ name: 'roster.csv', mimeType: 'text/csv', buffer: Buffer.from(roster) });
    await step(desk, 'import-chosen');

    await desk.getByRole('button', { name: 'Check the file (dry run)' }).click();
    await desk.getByRole('heading', { name: 'What the import would change' }).waitFor();
    const report = (await desk.locator('.results').textContent()) ?? '';
    expect(report).toMatch(/1 added, 1 updated, 0 unchanged, 0 erased, 0 kept/);
    expect(report).toContain(`Williamina ${newcomer}, row 3`);
    expect(report).toMatch(new RegExp(`Henrietta Leavitt, person ${existing.id}, row 2`));
    expect(report).toMatch(/last_name: Swan → Leavitt/);
    expect(report).toMatch(
      /memberships: \(none\) → club Harvard, kind full, start_date 2024-01-01, end_date \(empty\)/,
    );
    await step(desk, 'import-dry-run');
    // Nothing written yet.
    const reader = await t.tokenWith(['read']);
    const before = await request(t.app)
      .get(`/people/${existing.id}`)
      .set('Authorization', `Bearer ${reader}`);
    expect(before.body.last_name).toBe('Swan');

    await desk.getByRole('button', { name: 'Apply these changes' }).click();
    await desk.getByRole('heading', { name: 'Import applied' }).waitFor();
    await said(desk, 'status', /applied: 1 added, 1 updated/);
    await step(desk, 'import-applied');
    const after = await request(t.app).get(`/people/${existing.id}`).set('Authorization', `Bearer ${reader}`);
    expect(after.body.last_name).toBe('Leavitt');
    const added = await request(t.app)
      .get('/people')
      .query({ last_name: newcomer })
      .set('Authorization', `Bearer ${reader}`);
    expect(added.body).toHaveLength(1);

    // A bad file, dropped on the page: the API's messages, by row and column.
    const bad = [
      'member_number,first_name,last_name,club,kind,start_date,end_date',
      `${uniqueName('M')},Bad,Date,Harvard,full,2024-13-45,`,
      '',
    ].join('\n');
    const dataTransfer = await desk.evaluateHandle((text) => {
      const { DataTransfer, File } = globalThis as any;
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], 'bad.csv', { type: 'text/csv' }));
      return transfer;
    }, bad);
    await desk.locator('.drop-zone').dispatchEvent('drop', { dataTransfer });
    await expect(desk.locator('.chosen').textContent()).resolves.toMatch(/Chosen: bad\.csv/);
    await desk.getByRole('button', { name: 'Check the file (dry run)' }).click();
    await said(desk, 'alert', /cannot be imported \(400\).*row 2, column start_date/);
    await expect(desk.getByRole('button', { name: 'Apply these changes' }).isHidden()).resolves.toBe(true);
    await step(desk, 'import-refused');
  });

  it('dry-runs a JSON roster with remove_missing: who would be erased and who kept, nothing written', async () => {
    await addPerson({ lastName: uniqueName('Missing') });
    const roster = JSON.stringify([
      { first_name: 'Cecilia', last_name: uniqueName('Payne'), member_number: uniqueName('M') },
    ]);
    await tab(desk, 'Import');
    await desk
      .getByLabel(/Roster file/)
      .setInputFiles({ name: 'roster.json', mimeType: 'application/json', buffer: Buffer.from(roster) });
    await desk.getByLabel('Erase the members the file does not list').check();
    const sent = desk.waitForRequest((req) => req.url().includes('/imports'));
    await desk.getByRole('button', { name: 'Check the file (dry run)' }).click();
    const req = await sent;
    expect(new URL(req.url()).search).toBe('?dry_run=true&remove_missing=true');
    expect(req.headers()['content-type']).toBe('application/json');
    await desk.getByRole('heading', { name: 'What the import would change' }).waitFor();
    await expect(
      desk.getByRole('heading', { name: /^Erased: not in the file \(\d+\)$/ }).count(),
    ).resolves.toBe(1);
    // The secretary's own account is kept, and said so.
    await expect(desk.getByRole('heading', { name: /^Kept although not in the file/ }).count()).resolves.toBe(
      1,
    );
    await step(desk, 'import-remove-missing');
  });

  it('erases a person only after their member number is typed back', async () => {
    const person = await addPerson({
      firstName: 'Vera',
      lastName: uniqueName('Rubin'),
      memberNumber: uniqueName('M'),
    });
    await openPerson(desk, person);
    const confirm = desk.getByLabel(/To erase, type their member number/);
    await confirm.fill('someone else');
    await desk.getByRole('button', { name: 'Erase this person' }).click();
    await said(desk, 'alert', /Not erased: type/);
    await step(desk, 'erase-refused');
    const reader = await t.tokenWith(['read']);
    await request(t.app).get(`/people/${person.id}`).set('Authorization', `Bearer ${reader}`).expect(200);

    await confirm.fill(person.memberNumber as string);
    await desk.getByRole('button', { name: 'Erase this person' }).click();
    await said(desk, 'status', `Person ${person.id} was erased.`);
    await step(desk, 'erased');
    await request(t.app).get(`/people/${person.id}`).set('Authorization', `Bearer ${reader}`).expect(404);
  });

  it("downloads a person's subject-access export as a JSON file", async () => {
    const person = await addPerson({
      firstName: 'Jocelyn',
      lastName: uniqueName('Bell'),
      memberNumber: uniqueName('M'),
    });
    await openPerson(desk, person);
    const downloading = desk.waitForEvent('download');
    await desk.getByRole('button', { name: /Download their data/ }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`person-${person.id}-data.json`);
    const data = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(data.person).toMatchObject({
      id: person.id,
      last_name: person.lastName,
      member_number: person.memberNumber,
    });
    await said(desk, 'status', `Downloaded person-${person.id}-data.json.`);
    await step(desk, 'export-downloaded');
  });

  it('downloads the whole directory: everyone as CSV or JSON, the current members as CSV for a mail merge', async () => {
    const surname = uniqueName('Export');
    await addPerson({
      firstName: 'Current',
      lastName: surname,
      memberNumber: uniqueName('M'),
      memberships: [{ club: 'Harvard', kind: 'full', startDate: day(-10), endDate: day(100) }],
    });
    await addPerson({
      firstName: 'Former',
      lastName: surname,
      memberships: [{ club: 'Harvard', kind: 'full', startDate: day(-100), endDate: day(-10) }],
    });
    await tab(desk, 'Export');
    const saved = async (button: RegExp) => {
      const downloading = desk.waitForEvent('download');
      await desk.getByRole('button', { name: button }).click();
      const download = await downloading;
      const text = readFileSync(await download.path(), 'utf8');
      return {
        name: download.suggestedFilename(),
        lines: text.split(/\r?\n/).filter((line) => line.includes(surname)),
        text,
      };
    };
    const everyone = await saved(/^Everyone, as CSV/);
    expect(everyone.name).toBe(`members-${day(0)}.csv`);
    expect(everyone.lines).toHaveLength(2);
    const current = await saved(/^Current members/);
    expect(current.lines).toEqual([expect.stringContaining('Current')]);
    const json = await saved(/^Everyone, as JSON/);
    expect(json.name).toBe(`members-${day(0)}.json`);
    expect(json.text.split(surname)).toHaveLength(3);
    await said(desk, 'status', `Downloaded members-${day(0)}.json.`);
    await step(desk, 'export-directory');
  });

  it('shows a name made of HTML as text, never as markup', async () => {
    const markup = '<img src=x onerror=alert(1)>';
    const person = await addPerson({ firstName: markup, lastName: uniqueName('Script') });
    await openPerson(desk, person);
    await expect(desk.getByRole('heading', { level: 2 }).textContent()).resolves.toBe(
      `${markup} ${person.lastName}`,
    );
    await expect(desk.getByLabel('First name', { exact: true }).inputValue()).resolves.toBe(markup);
    await expect(desk.locator('img').count()).resolves.toBe(0);
    await step(desk, 'markup-as-text');
  });

  it("shows the API's messages, a network failure and a database outage plainly", async () => {
    await tab(desk, 'Search');
    // The API's own message, as it gives it.
    await desk.getByLabel('Member number', { exact: true }).fill('x'.repeat(300));
    await desk.getByLabel('Member number', { exact: true }).press('Enter');
    await said(desk, 'alert', /The search failed \(400\).*member_number/);
    await desk.getByLabel('Member number', { exact: true }).fill('');

    provoked = /ERR_INTERNET_DISCONNECTED/;
    await desk.route('**/people?**', (route) => route.abort('internetdisconnected'));
    await desk.getByLabel('Name', { exact: true }).fill('anyone');
    await desk.getByLabel('Name', { exact: true }).press('Enter');
    await said(desk, 'alert', /No answer from the directory service/);
    await step(desk, 'network-failure');
    await desk.unroute('**/people?**');

    await desk.route('**/people?**', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ errors: ['the database is unavailable'] }),
      }),
    );
    await desk.getByLabel('Name', { exact: true }).press('Enter');
    await said(desk, 'alert', /\(503\).*database cannot be reached.*the database is unavailable/);
    await step(desk, 'database-down');
    await desk.unroute('**/people?**');
  });

  it('sends a strict Content-Security-Policy with the page and its files, and the browser enforces it', async () => {
    for (const url of ['/desk', '/desk/assets/desk.js', '/desk/assets/desk.css', '/desk/assets/nothing.js']) {
      const res = await request(t.app).get(url);
      const policy = String(res.headers['content-security-policy']);
      const directives = new Map(
        policy.split(';').map((directive) => {
          const [name, ...values] = directive.trim().split(/\s+/);
          return [name, values.join(' ')] as const;
        }),
      );
      expect({ url, directives: Object.fromEntries(directives) }).toMatchObject({
        url,
        directives: {
          'default-src': "'self'",
          'script-src': "'self'",
          'style-src': "'self'",
          'connect-src': "'self'",
          'frame-ancestors': "'none'",
          'object-src': "'none'",
        },
      });
      expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https:|data:/);
    }
    // In the page: an inline script does not run.
    provoked = /Content Security Policy|TrustedScript/;
    const ran = await desk.evaluate(() => {
      const { document } = globalThis as any;
      const script = document.createElement('script');
      try {
        script.text = 'window.inlineRan = true';
      } catch {
        return 'refused by Trusted Types';
      }
      document.body.append(script);
      return (globalThis as any).inlineRan === true ? 'ran' : 'blocked';
    });
    expect(ran).not.toBe('ran');
  });
});
