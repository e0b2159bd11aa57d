import { json, type Person } from './api';
import { field, fill, h, uid } from './dom';
import { Messages, onSubmit } from './messages';
import { firstContact, fullName, standingWord } from './people';
import type { Session } from './session';

// A long list is no use on a phone, and the directory may hold thousands.
const SHOWN = 200;

/** The filters to send for what was typed: a name is looked for in first and last names alike. */
function filtersFor(name: string, rest: Record<string, string>): Record<string, string>[] {
  if (name === '') return [rest];
  const filters = [
    { ...rest, first_name: name },
    { ...rest, last_name: name },
  ];
  const words = name.split(/\s+/);
  if (words.length > 1) filters.push({ ...rest, first_name: words[0], last_name: words.slice(1).join(' ') });
  return filters;
}

/** Search: by name, email, member number, current or not, standing; each result opens the person. */
export function searchView(session: Session, open: (id: number) => void): HTMLElement {
  const messages = new Messages();
  const name = field('Name', { autocomplete: 'off' }, 'Part of a first or last name, or both.');
  const email = field('Email', { type: 'email', autocomplete: 'off' });
  const number = field('Member number', { autocomplete: 'off' });
  const activeId = uid('active');
  const active = h(
    'select',
    { id: activeId },
    h('option', { value: '' }, 'Anyone'),
    h('option', { value: 'yes' }, 'Current members'),
    h('option', { value: 'no' }, 'Not current'),
  );
  const standingId = uid('standing');
  // The API's filters: a standing, or in good standing (current or grace).
  const standing = h(
    'select',
    { id: standingId },
    h('option', { value: '' }, 'Any standing'),
    h('option', { value: 'good' }, 'In good standing (current or in grace)'),
    h('option', { value: 'current' }, 'Current'),
    h('option', { value: 'grace' }, 'In grace'),
    h('option', { value: 'pending' }, 'Starts later'),
    h('option', { value: 'lapsed' }, 'Lapsed'),
    h('option', { value: 'none' }, 'No membership'),
  );
  const submit = h('button', { type: 'submit' }, 'Search');
  const results = h('div', { class: 'results' });

  async function search(): Promise<void> {
    messages.clear();
    // The last answer goes at once: results on screen always belong to the search in the form.
    fill(results, h('p', {}, 'Searching…'));
    const rest: Record<string, string> = {};
    if (email.input.value.trim() !== '') rest.email = email.input.value.trim();
    if (number.input.value.trim() !== '') rest.member_number = number.input.value.trim();
    if (active.value !== '') rest.active = active.value;
    if (standing.value === 'good') rest.in_good_standing = 'true';
    else if (standing.value !== '') rest.standing = standing.value;
    // A name is looked for as a first name and as a last name at once (at most three searches,
    // within the four unpaged searches a key may run together).
    const answers = await Promise.all(
      filtersFor(name.input.value.trim(), rest).map(async (filter) =>
        json<Person[]>(await session.call(`/people?${new URLSearchParams(filter)}`)),
      ),
    );
    const found = new Map<number, Person>();
    for (const person of answers.flat()) found.set(person.id, person);
    const people = [...found.values()].sort((a, b) => a.id - b.id);
    fill(
      results,
      h('h3', {}, people.length === 1 ? '1 person found' : `${people.length} people found`),
      people.length > SHOWN
        ? h('p', {}, `The first ${SHOWN} are shown: narrow the search to see the others.`)
        : null,
      people.length === 0
        ? null
        : h(
            'ul',
            { class: 'people' },
            people
              .slice(0, SHOWN)
              .map((person) =>
                h(
                  'li',
                  { 'data-person-id': person.id },
                  h(
                    'button',
                    { type: 'button', class: 'link', onclick: () => open(person.id) },
                    fullName(person),
                  ),
                  h(
                    'span',
                    { class: 'details' },
                    [
                      person.member_number === null ? 'no member number' : `no. ${person.member_number}`,
                      firstContact(person, 'email'),
                      standingWord(person),
                    ]
                      .filter((part) => part !== null)
                      .join(' · '),
                  ),
                ),
              ),
          ),
    );
  }

  const form = h(
    'form',
    {
      class: 'search',
      'aria-label': 'Search people',
      onsubmit: onSubmit(submit, search, (problem) => {
        fill(results);
        messages.error(problem, 'The search failed');
      }),
    },
    name.wrapper,
    email.wrapper,
    number.wrapper,
    h('div', { class: 'field' }, h('label', { for: activeId }, 'Membership'), active),
    h('div', { class: 'field' }, h('label', { for: standingId }, 'Standing'), standing),
    h('div', { class: 'actions' }, submit),
  );
  return h(
    'section',
    { 'aria-labelledby': 'search-heading' },
    h('h2', { id: 'search-heading', tabindex: -1 }, 'Search people'),
    form,
    messages.element,
    results,
  );
}
