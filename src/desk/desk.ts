import { ApiFailure, basicCredentials, call, type IssuedKey, json, PERMISSIONS } from './api';
import { field, fill, h } from './dom';
import { exportView } from './export';
import { importView } from './import';
import { busy, Messages, onSubmit } from './messages';
import { PersonView } from './person';
import { renewalsView } from './renewals';
import { searchView } from './search';
import { lackingSection, NEEDED_FOR, Session } from './session';

const root = document.getElementById('desk') as HTMLElement;
// Problems nothing else caught: said on the page rather than left in the console.
const pageProblems = new Messages();

type Tab = 'search' | 'renewals' | 'import' | 'export';
const TABS: { tab: Tab; label: string }[] = [
  { tab: 'search', label: 'Search' },
  { tab: 'renewals', label: 'Renewals' },
  { tab: 'import', label: 'Import' },
  { tab: 'export', label: 'Export' },
];

let session: Session | null = null;

function signInView(notice?: ApiFailure | string): void {
  session = null;
  const messages = new Messages();
  const username = field('Username', { autocomplete: 'username', required: true });
  const password = field('Password', { type: 'password', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const heading = h('h2', { id: 'sign-in-heading', tabindex: -1 }, 'Sign in');
  const form = h(
    'form',
    {
      'aria-labelledby': 'sign-in-heading',
      onsubmit: onSubmit(
        submit,
        async () => {
          messages.clear();
          // A key for a day at most: one forgotten in a closed tab expires by itself.
          const response = await call('/keys', {
            method: 'POST',
            headers: { Authorization: basicCredentials(username.input.value, password.input.value) },
            body: { name: 'secretary page', expires_in_days: 1 },
          });
          const key = await json<IssuedKey>(response);
          password.input.value = '';
          session = new Session(
            username.input.value,
            key.token,
            key.id,
            key.permissions,
            key.expires_at,
            (failure) => signInView(failure),
          );
          deskView('search');
        },
        (problem) => {
          messages.error(problem, 'Not signed in');
          password.input.focus();
        },
      ),
    },
    username.wrapper,
    password.wrapper,
    h('div', { class: 'actions' }, submit),
  );
  fill(
    root,
    h('header', {}, h('h1', {}, 'Membership desk')),
    h(
      'main',
      { 'aria-labelledby': 'sign-in-heading' },
      pageProblems.element,
      heading,
      h('p', {}, "Sign in with your account's username and password."),
      messages.element,
      form,
    ),
  );
  if (notice instanceof ApiFailure)
    messages.error(notice, 'Signed out: the service no longer accepts the key');
  else if (notice !== undefined) messages.info(notice);
  username.input.focus();
}

async function signOut(): Promise<void> {
  const current = session;
  if (current === null) return;
  try {
    await call('/keys', { method: 'DELETE', key: current.key });
    signInView('Signed out. The key this page used is revoked.');
  } catch (problem) {
    const expiry =
      current.expiresAt === null
        ? ''
        : ` It expires by itself at ${new Date(current.expiresAt).toLocaleString()}.`;
    const messages = problem instanceof ApiFailure ? problem.messages : [String(problem)];
    signInView(`Signed out of this page, but the key could not be revoked: ${messages.join(' ')}${expiry}`);
  }
}

function permissionsNote(current: Session): HTMLElement {
  const missing = PERMISSIONS.filter((permission) => !current.can(permission));
  return h(
    'div',
    { class: 'permissions' },
    h(
      'p',
      {},
      `Signed in as ${current.username}. This key may: ${current.permissions.join(', ') || 'nothing'}.`,
    ),
    missing.length === 0
      ? null
      : h(
          'ul',
          { class: 'missing' },
          missing.map((permission) =>
            h(
              'li',
              {},
              `It lacks ${permission}, needed for ${NEEDED_FOR[permission]}: those are unavailable here.`,
            ),
          ),
        ),
    missing.length === 0
      ? null
      : h(
          'p',
          { class: 'hint' },
          `An operator grants a permission on the server with ${missing
            .map((permission) => `npm run cli -- accounts grant ${current.username} ${permission}`)
            .join(' and ')}; then sign out and in again, for a key keeps the permissions it was issued with.`,
        ),
  );
}

function deskView(tab: Tab, focus = false): void {
  const current = session;
  if (current === null) {
    signInView();
    return;
  }
  const signOutButton = h('button', { type: 'button', class: 'sign-out' }, 'Sign out');
  signOutButton.addEventListener('click', () => {
    busy(signOutButton, signOut).catch((problem) => pageProblems.error(problem));
  });
  const content = h('div', {});
  const nav = h(
    'nav',
    { 'aria-label': 'Tasks' },
    h(
      'ul',
      {},
      TABS.map(({ tab: each, label }) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              'aria-current': each === tab ? 'page' : null,
              onclick: () => deskView(each, true),
            },
            label,
          ),
        ),
      ),
    ),
  );
  const openPerson = (id: number): void => {
    const view = new PersonView(
      current,
      id,
      () => {
        fill(content, searchSection);
        searchSection.querySelector('h2')?.focus();
      },
      (erased) => {
        fill(content, searchSection);
        searchSection.querySelector(`li[data-person-id="${erased}"]`)?.remove();
        searchMessages.info(`Person ${erased} was erased.`);
        searchSection.querySelector('h2')?.focus();
      },
    );
    fill(content, view.element);
    view.heading.focus();
    view.load().catch((problem) => pageProblems.error(problem));
  };
  const searchMessages = new Messages();
  const searchSection = current.can('read')
    ? searchView(current, openPerson)
    : lackingSection(
        h('h2', { tabindex: -1 }, 'Search people'),
        'Searching needs the read permission, which this key lacks.',
      );
  searchSection.append(searchMessages.element);
  const section =
    tab === 'search'
      ? searchSection
      : tab === 'renewals'
        ? current.can('read')
          ? renewalsView(current)
          : lackingSection(
              h('h2', { tabindex: -1 }, 'Renewals'),
              'Renewals need the read permission, which this key lacks.',
            )
        : tab === 'import'
          ? importView(current)
          : exportView(current);
  fill(content, section);
  fill(
    root,
    h('header', {}, h('h1', {}, 'Membership desk'), signOutButton),
    h(
      'main',
      { 'aria-label': 'Membership desk' },
      pageProblems.element,
      permissionsNote(current),
      nav,
      content,
    ),
  );
  if (focus) section.querySelector('h2')?.focus();
}

window.addEventListener('error', (event) =>
  pageProblems.error(event.error ?? event.message, 'The page hit an error'),
);
window.addEventListener('unhandledrejection', (event) =>
  pageProblems.error(event.reason, 'The page hit an error'),
);
// Closing the tab forgets the key; revoke it too, so that it is not left valid until it expires.
window.addEventListener('pagehide', () => {
  if (session !== null)
    fetch('/keys', {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${session.key}` },
      keepalive: true,
    }).catch(() => undefined);
});

signInView();
