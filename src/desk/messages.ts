import { ApiFailure } from './api';
import { fill, h } from './dom';

/**
 * Where a part of the page says how things went. Errors go to a live region read out at once
 * (role=alert), other news to a polite one (role=status); both are always in the page, empty
 * until they have something to say, so that screen readers announce what is put in them.
 */
export class Messages {
  readonly element: HTMLDivElement;
  private readonly alert: HTMLDivElement;
  private readonly status: HTMLDivElement;

  constructor() {
    this.alert = h('div', { role: 'alert', class: 'messages error' });
    this.status = h('div', { role: 'status', class: 'messages info' });
    this.element = h('div', { class: 'message-area' }, this.alert, this.status);
  }

  clear(): void {
    fill(this.alert);
    fill(this.status);
  }

  info(text: string): void {
    fill(this.alert);
    fill(this.status, h('p', {}, text));
  }

  /** Shows an error: an ApiFailure's messages as the API gave them, one per line, under a title. */
  error(problem: unknown, title?: string): void {
    fill(this.status);
    const messages =
      problem instanceof ApiFailure
        ? problem.messages
        : [problem instanceof Error ? problem.message : String(problem)];
    const status = problem instanceof ApiFailure && problem.status !== null ? ` (${problem.status})` : '';
    fill(
      this.alert,
      title === undefined ? null : h('p', { class: 'title' }, `${title}${status}`),
      messages.length === 1 && title === undefined
        ? h('p', {}, messages[0])
        : h(
            'ul',
            {},
            messages.map((message) => h('li', {}, message)),
          ),
    );
  }
}

/**
 * What a form does when submitted: the page stays, `work` runs with `button` busy (see busy), and
 * a failure goes to `failed`.
 */
export function onSubmit(
  button: HTMLButtonElement,
  work: () => Promise<unknown>,
  failed: (problem: unknown) => void,
): (event: Event) => void {
  return (event) => {
    event.preventDefault();
    busy(button, work).catch(failed);
  };
}

/** Runs `work` with `button` disabled and marked busy, so a slow answer is neither lost nor sent twice. */
export async function busy<T>(button: HTMLButtonElement, work: () => Promise<T>): Promise<T> {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}
