import { CSV_BYTE_ORDER_MARK, csvLine } from '../person-file/csv-line';
import { json, type Person } from './api';
import { download, field, fill, h } from './dom';
import { Messages, onSubmit } from './messages';
import { currentUntil, firstContact, fullName, graceUntil, isoDate } from './people';
import type { Session } from './session';

const CSV_HEADER = [
  'member_number',
  'first_name',
  'last_name',
  'email',
  'phone',
  'address',
  'club',
  'end_date',
];

/** The club of the current membership that ends last (the one to renew). */
function clubOf(person: Person): string | null {
  const until = currentUntil(person);
  return (
    person.memberships.find((membership) => membership.current && membership.end_date === until)?.club.name ??
    null
  );
}

/** Renewals: who is current today and stops being a member by the chosen date; the list as CSV. */
export function renewalsView(session: Session): HTMLElement {
  const messages = new Messages();
  const before = field(
    'Membership ending on or before',
    { type: 'date', value: isoDate(new Date(), 1), required: true },
    'Current members who stop being members by this date unless they renew.',
  );
  const show = h('button', { type: 'submit' }, 'Show who is ending');
  const csvButton = h('button', { type: 'button', disabled: true }, 'Download the list as CSV');
  const results = h('div', { class: 'results' });
  let shown: { date: string; people: Person[] } | null = null;

  async function list(): Promise<void> {
    messages.clear();
    fill(results, h('p', {}, 'Reading…'));
    shown = null;
    csvButton.disabled = true;
    const date = before.input.value;
    if (date === '') {
      fill(results);
      messages.error(new Error('Choose a date first.'));
      return;
    }
    const response = await session.call(`/people?${new URLSearchParams({ ending_before: date })}`);
    const people = await json<Person[]>(response);
    shown = { date, people };
    csvButton.disabled = people.length === 0;
    fill(
      results,
      h(
        'h3',
        {},
        people.length === 1 ? `1 member ending by ${date}` : `${people.length} members ending by ${date}`,
      ),
      people.length === 0 ? null : peopleList(people, (person) => `until ${currentUntil(person) ?? '?'}`),
    );
  }

  csvButton.addEventListener('click', () => {
    if (shown === null) return;
    // The export's spelling of CSV (quotes where needed, CR LF, a byte order mark): one rule for every CSV.
    const lines = [
      CSV_BYTE_ORDER_MARK,
      csvLine(CSV_HEADER),
      ...shown.people.map((person) =>
        csvLine([
          person.member_number,
          person.first_name,
          person.last_name,
          firstContact(person, 'email'),
          firstContact(person, 'phone'),
          firstContact(person, 'address'),
          clubOf(person),
          currentUntil(person),
        ]),
      ),
    ];
    const name = `renewals-before-${shown.date}.csv`;
    download(name, new Blob(lines, { type: 'text/csv;charset=utf-8' }));
    messages.info(`Downloaded ${name} (${shown.people.length} members).`);
  });

  return h(
    'section',
    { 'aria-labelledby': 'renewals-heading' },
    h('h2', { id: 'renewals-heading', tabindex: -1 }, 'Renewals'),
    h(
      'form',
      {
        'aria-labelledby': 'renewals-heading',
        onsubmit: onSubmit(show, list, (problem) => {
          fill(results);
          messages.error(problem, 'The list could not be read');
        }),
      },
      before.wrapper,
      h('div', { class: 'actions' }, show, csvButton),
    ),
    messages.element,
    results,
    inGraceView(session),
  );
}

const GRACE_CSV_HEADER = [
  'member_number',
  'first_name',
  'last_name',
  'email',
  'phone',
  'address',
  'grace_until',
];

/**
 * Who is in grace (SPEC §10): their membership has ended, they are still in good standing for the
 * grace days, and they lapse after grace_until unless they renew; the list as CSV.
 */
function inGraceView(session: Session): HTMLElement {
  const messages = new Messages();
  const show = h('button', { type: 'submit' }, 'Show who is in grace');
  const csvButton = h('button', { type: 'button', disabled: true }, 'Download the grace list as CSV');
  const results = h('div', { class: 'results' });
  let shown: Person[] = [];

  async function list(): Promise<void> {
    messages.clear();
    fill(results, h('p', {}, 'Reading…'));
    csvButton.disabled = true;
    shown = await json<Person[]>(await session.call('/people?standing=grace'));
    csvButton.disabled = shown.length === 0;
    fill(
      results,
      h('h3', {}, shown.length === 1 ? '1 member in grace' : `${shown.length} members in grace`),
      shown.length === 0
        ? null
        : peopleList(shown, (person) => `in grace until ${graceUntil(person) ?? '?'}`),
    );
  }

  csvButton.addEventListener('click', () => {
    const lines = [
      CSV_BYTE_ORDER_MARK,
      csvLine(GRACE_CSV_HEADER),
      ...shown.map((person) =>
        csvLine([
          person.member_number,
          person.first_name,
          person.last_name,
          firstContact(person, 'email'),
          firstContact(person, 'phone'),
          firstContact(person, 'address'),
          graceUntil(person),
        ]),
      ),
    ];
    const name = 'in-grace.csv';
    download(name, new Blob(lines, { type: 'text/csv;charset=utf-8' }));
    messages.info(`Downloaded ${name} (${shown.length} members).`);
  });

  return h(
    'div',
    { class: 'in-grace' },
    h('h3', { id: 'grace-heading' }, 'In grace'),
    h(
      'form',
      {
        'aria-labelledby': 'grace-heading',
        onsubmit: onSubmit(show, list, (problem) => {
          fill(results);
          messages.error(problem, 'The grace list could not be read');
        }),
      },
      h('div', { class: 'actions' }, show, csvButton),
    ),
    messages.element,
    results,
  );
}

/** A list of people as both lists show them: name, member number, first email, and `last`. */
function peopleList(people: Person[], last: (person: Person) => string): HTMLElement {
  return h(
    'ul',
    { class: 'people' },
    people.map((person) =>
      h(
        'li',
        {},
        h('span', { class: 'name' }, fullName(person)),
        h(
          'span',
          { class: 'details' },
          [
            person.member_number === null ? null : `no. ${person.member_number}`,
            firstContact(person, 'email'),
            last(person),
          ]
            .filter((part) => part !== null)
            .join(' · '),
        ),
      ),
    ),
  );
}
