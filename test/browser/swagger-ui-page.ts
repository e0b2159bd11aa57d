import type { Locator, Page } from 'playwright-core';

// Every wait is bounded: a page that never answers fails the test instead of hanging it.
const STEP_TIMEOUT_MS = 20_000;

export interface ShownAnswer {
  /** What Swagger UI shows as the code under "Server response": a status, or "Undocumented" when the browser refused or failed the request. */
  status: string;
  /** The response body as the page shows it. */
  body: string;
  /** The "Response headers" block, one `name: value` a line, names in lower case. */
  headers: string;
  /** The request URL the page shows it called. */
  url: string;
}

export interface TryItOut {
  /** Parameter values by `in` and name, e.g. `{ query: { has_chat: 'true' } }`; selects take the option's text. */
  parameters?: Partial<Record<'path' | 'query' | 'header', Record<string, string>>>;
  /** Replaces the request body the page proposes (its example); when absent, the example is sent. */
  body?: string;
  /** Picks a named example of the request body. */
  example?: string;
  /** Picks the request body's media type. */
  contentType?: string;
  /** Values of a form-encoded body's fields, by name; the others keep what the page proposes. */
  form?: Record<string, string>;
}

/**
 * Drives Swagger UI at /docs the way a person does: the Authorize dialog, then per operation
 * "Try it out", the parameter fields, Execute, and the server response the page shows.
 */
export class SwaggerUiPage {
  constructor(readonly page: Page) {
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
  }

  /** Enters credentials for one security scheme in the Authorize dialog and closes it. */
  async authorize(credentials: { bearer: string } | { username: string; password: string }): Promise<void> {
    await this.page.locator('.scheme-container button.authorize').click();
    const dialog = this.page.locator('.dialog-ux .modal-ux');
    await dialog.waitFor();
    // One form per security scheme, headed by the scheme's name.
    const scheme = 'bearer' in credentials ? 'bearer' : 'basic';
    const form = dialog.locator('.auth-container form', {
      has: this.page.locator('h4 code', { hasText: new RegExp(`^${scheme}$`) }),
    });
    if ('bearer' in credentials) {
      await form.locator('input[aria-label="auth-bearer-value"]').fill(credentials.bearer);
    } else {
      await form.locator('input[aria-label="auth-basic-username"]').fill(credentials.username);
      await form.locator('input[aria-label="auth-basic-password"]').fill(credentials.password);
    }
    await form.locator('button[type="submit"]').click();
    // Once the page holds the credentials, the form offers to remove them instead.
    await form.locator('button[aria-label="Remove authorization"]').waitFor();
    await dialog.locator('button.close-modal').click();
    await dialog.waitFor({ state: 'detached' });
  }

  /** The operation's block, opened. Swagger UI names it `operations-<tag>-<operationId>`. */
  private async open(tag: string, operationId: string): Promise<Locator> {
    const block = this.page.locator(`#operations-${tag}-${operationId}`);
    await block.waitFor();
    if (!(await block.evaluate((element) => element.classList.contains('is-open')))) {
      await block.locator('.opblock-summary-control').click();
    }
    await block.locator('.opblock-body').waitFor();
    // Left as a person leaves it after trying: clear the answer and leave "Try it out", so this run
    // starts from the page's proposals and cannot read the last answer. Done here, only for an
    // operation tried before, rather than after every run: most are tried once.
    if ((await block.locator('.live-responses-table .response').count()) > 0) {
      await block.locator('button.btn-clear').click();
      await block.locator('.live-responses-table .response').waitFor({ state: 'detached' });
      await block.locator('button.try-out__btn.cancel').click();
    }
    return block;
  }

  /** "Try it out", fill in, Execute: the answer the page shows. */
  async execute(tag: string, operationId: string, input: TryItOut = {}): Promise<ShownAnswer> {
    const block = await this.open(tag, operationId);
    await block.locator('button.try-out__btn').click();
    for (const [place, values] of Object.entries(input.parameters ?? {})) {
      for (const [name, value] of Object.entries(values ?? {})) {
        const row = block.locator(`tr[data-param-name="${name}"][data-param-in="${place}"]`);
        const select = row.locator('select');
        if ((await select.count()) > 0) await select.selectOption({ label: value });
        else await row.locator('input').fill(value);
      }
    }
    if (input.contentType !== undefined) {
      await block.locator('.opblock-section-request-body select').first().selectOption(input.contentType);
    }
    if (input.example !== undefined) {
      await block.locator('.opblock-section-request-body .examples-select select').selectOption({
        label: input.example,
      });
    }
    if (input.body !== undefined) await block.locator('textarea.body-param__text').fill(input.body);
    for (const [name, value] of Object.entries(input.form ?? {})) {
      await block
        .locator(`.opblock-section-request-body tr[data-property-name="${name}"] input[type="text"]`)
        .fill(value);
    }
    await block.locator('button.execute').click();

    const live = block.locator('.live-responses-table .response');
    const status = live.locator('.response-col_status');
    await status.waitFor();
    const description = live.locator('.response-col_description');
    // The body is highlighted code; when the request failed in the browser there is only a message.
    const code = description.locator('.highlight-code pre');
    const headers = description.locator('div', {
      has: this.page.locator('h5', { hasText: 'Response headers' }),
    });
    const answer: ShownAnswer = {
      status: (await status.textContent())?.trim() ?? '',
      body:
        ((await code.count()) > 0 ? await code.first().textContent() : await description.textContent()) ?? '',
      headers: (await headers.count()) > 0 ? ((await headers.locator('pre').textContent()) ?? '') : '',
      url: (await block.locator('.request-url pre').textContent())?.trim() ?? '',
    };
    // Closed again once read, as a person moves on: every operation left open with its answer
    // (some of them long, highlighted documents) makes each later step of the page slower.
    await block.locator('.opblock-summary-control').click();
    await block.locator('.opblock-body').waitFor({ state: 'detached' });
    return answer;
  }
}
