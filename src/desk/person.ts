import { ApiFailure, json, type Person } from './api';
import { download, field, fill, h } from './dom';
import { busy, Messages, onSubmit } from './messages';
import { fullName, standingWord } from './people';
import { lackingSection, type Session } from './session';

interface AuditEntry {
  at: string;
  actor: string;
  actor_key_id: number | null;
  action: string;
  subject_type: string;
  subject_id: number;
  field: string | null;
  old_value: string | null;
  new_value: string | null;
}
interface FeedChange {
  seq: number;
  at: string;
  type: string;
  fields: string[] | null;
  by: number | null;
}
interface PersonData {
  audit: AuditEntry[];
  changes: FeedChange[];
}

/** The membership's status (SPEC §10) in words, with the last day of a grace. */
function membershipStatus(membership: Person['memberships'][number]): string {
  if (membership.status === 'grace') return `In grace until ${membership.grace_until}`;
  return { pending: 'Starts later', current: 'Current', ended: 'Ended' }[membership.status];
}

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A table that scrolls sideways on a narrow screen, reachable by keyboard to do so. */
function table(
  caption: string,
  headings: string[],
  rows: (string | null)[][],
  captionShown = true,
  // Columns kept on one line (dates); the others wrap, so that most tables fit a phone.
  whole: number[] = [],
): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', { class: captionShown ? null : 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headings.map((heading) => h('th', { scope: 'col' }, heading)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            {},
            row.map((cell, column) =>
              h('td', { class: whole.includes(column) ? 'whole' : null }, cell ?? '—'),
            ),
          ),
        ),
      ),
    ),
  );
}

/**
 * One person: their details, contacts and memberships; the correction form (write); their history,
 * subject-access export and erasure (manage).
 */
export class PersonView {
  readonly element: HTMLElement;
  private readonly messages = new Messages();
  private readonly body = h('div', {});
  private person: Person | null = null;
  private etag: string | null = null;

  constructor(
    private readonly session: Session,
    private readonly id: number,
    private readonly back: () => void,
    private readonly erased: (id: number) => void,
  ) {
    this.element = h(
      'section',
      { 'aria-labelledby': 'person-heading' },
      h('button', { type: 'button', class: 'back', onclick: () => this.back() }, 'Back to the search'),
      h('h2', { id: 'person-heading', tabindex: -1 }, `Person ${id}`),
      this.messages.element,
      this.body,
    );
  }

  get heading(): HTMLElement {
    return this.element.querySelector('h2') as HTMLElement;
  }

  /** Reads the person (and, with manage, their history) and shows them. */
  async load(): Promise<void> {
    try {
      await this.read();
    } catch (problem) {
      this.messages.error(problem, `Person ${this.id} could not be read`);
      return;
    }
    this.render();
  }

  private async read(): Promise<void> {
    const response = await this.session.call(`/people/${this.id}`);
    this.etag = response.headers.get('ETag');
    this.person = await json<Person>(response);
  }

  private render(): void {
    const person = this.person as Person;
    fill(this.heading, fullName(person));
    fill(
      this.body,
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Id'),
        h('dd', {}, String(person.id)),
        h('dt', {}, 'Member number'),
        h('dd', {}, person.member_number ?? 'none'),
        h('dt', {}, 'Chat ID'),
        h('dd', {}, person.chat_id ?? 'none'),
        h('dt', {}, 'Planner ID'),
        h('dd', {}, person.planner_id ?? 'none'),
        h('dt', {}, 'Standing'),
        h(
          'dd',
          {},
          person.good_standing_until === null
            ? standingWord(person)
            : `${standingWord(person)}, in good standing until ${person.good_standing_until}`,
        ),
      ),
      h('h3', {}, 'Contacts'),
      person.contacts.length === 0
        ? h('p', {}, 'No contacts.')
        : h(
            'ul',
            { class: 'contacts' },
            person.contacts.map((contact) =>
              h(
                'li',
                {},
                h(
                  'span',
                  { class: 'kind' },
                  `${contact.kind}${contact.label === null ? '' : ` (${contact.label})`}: `,
                ),
                h('span', { class: 'value' }, contact.value),
              ),
            ),
          ),
      h('h3', {}, 'Memberships'),
      person.memberships.length === 0
        ? h('p', {}, 'No memberships.')
        : table(
            'Memberships',
            // Current or not first: on a phone it is what shows without scrolling.
            ['Status', 'Club', 'Kind', 'Start', 'End'],
            person.memberships.map((membership) => [
              membershipStatus(membership),
              membership.club.name,
              membership.kind,
              membership.start_date,
              membership.end_date ?? 'open-ended',
            ]),
            false,
            [3, 4],
          ),
      this.correction(person),
      this.history(),
      this.manageSection(person),
    );
  }

  private correction(person: Person): HTMLElement {
    const heading = h('h3', { id: 'correct-heading' }, 'Correct names and chat ID');
    if (!this.session.can('write'))
      return h(
        'section',
        {},
        heading,
        h('p', { class: 'missing' }, 'Correcting needs the write permission, which this key lacks.'),
      );
    const first = field('First name', { value: person.first_name, required: true, autocomplete: 'off' });
    const last = field('Last name', { value: person.last_name, required: true, autocomplete: 'off' });
    const chat = field(
      'Chat ID',
      { value: person.chat_id ?? '', autocomplete: 'off' },
      'Leave empty to clear it.',
    );
    const save = h('button', { type: 'submit' }, 'Save the correction');
    const messages = new Messages();
    const submit = async () => {
      const changes: Record<string, string | null> = {};
      if (first.input.value !== person.first_name) changes.first_name = first.input.value;
      if (last.input.value !== person.last_name) changes.last_name = last.input.value;
      if (chat.input.value !== (person.chat_id ?? '')) changes.chat_id = chat.input.value;
      if (Object.keys(changes).length === 0) {
        messages.info('Nothing to save: the values are as they were.');
        return;
      }
      try {
        const response = await this.session.call(`/people/${person.id}`, {
          method: 'PATCH',
          body: { person: changes },
          headers: this.etag === null ? {} : { 'If-Match': this.etag },
        });
        this.etag = response.headers.get('ETag');
        this.person = await json<Person>(response);
        this.render();
        this.correctionMessages().info('Saved.');
      } catch (problem) {
        if (!(problem instanceof ApiFailure) || problem.status !== 412) throw problem;
        // Someone else changed the person since the page read them: their values are shown, and
        // what the secretary typed is said, so that it can be typed again if still right.
        const typed = Object.entries(changes).map(([name, value]) => `${name} “${value ?? ''}”`);
        await this.read();
        this.render();
        this.correctionMessages().error(
          new ApiFailure(412, [
            'Someone else changed this person after you opened them, so your correction was not saved.',
            'The values shown now are the current ones: check them and make your correction again.',
            `You had entered: ${typed.join(', ')}.`,
            ...problem.messages,
          ]),
          'Not saved',
        );
      }
    };
    return h(
      'section',
      { 'aria-labelledby': 'correct-heading', class: 'correction' },
      heading,
      h(
        'form',
        {
          'aria-labelledby': 'correct-heading',
          onsubmit: onSubmit(save, submit, (problem) => messages.error(problem, 'Not saved')),
        },
        first.wrapper,
        last.wrapper,
        chat.wrapper,
        h('div', { class: 'actions' }, save),
      ),
      messages.element,
    );
  }

  private correctionMessages(): Messages {
    const area = this.element.querySelector('.correction .message-area');
    const messages = new Messages();
    area?.replaceWith(messages.element);
    return messages;
  }

  private history(): HTMLElement {
    const heading = h('h3', { id: 'history-heading' }, 'History of changes');
    const section = h('section', { 'aria-labelledby': 'history-heading' }, heading);
    if (!this.session.can('manage')) {
      section.append(
        h(
          'p',
          { class: 'missing' },
          'The history of changes needs the manage permission, which this key lacks.',
        ),
      );
      return section;
    }
    const content = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Reading the history…'));
    const messages = new Messages();
    section.append(messages.element, content);
    this.session
      .call(`/people/${this.id}/data`)
      .then((response) => json<PersonData>(response))
      .then((data) => {
        content.removeAttribute('aria-busy');
        fill(
          content,
          data.audit.length === 0
            ? h('p', {}, 'No recorded changes.')
            : table(
                'Audit entries, oldest first',
                ['When', 'What', 'Field', 'Old', 'New', 'By'],
                data.audit.map((entry) => [
                  when(entry.at),
                  entry.action,
                  entry.field,
                  entry.old_value,
                  entry.new_value,
                  entry.actor_key_id === null ? entry.actor : `${entry.actor}, key ${entry.actor_key_id}`,
                ]),
              ),
          data.changes.length === 0
            ? null
            : table(
                'Change feed, oldest first',
                ['When', 'Change', 'Fields', 'By key'],
                data.changes.map((change) => [
                  when(change.at),
                  change.type,
                  change.fields === null ? null : change.fields.join(', '),
                  change.by === null ? null : String(change.by),
                ]),
              ),
        );
      })
      .catch((problem) => {
        content.removeAttribute('aria-busy');
        fill(content);
        messages.error(problem, 'The history could not be read');
      });
    return section;
  }

  private manageSection(person: Person): HTMLElement {
    const heading = h('h3', { id: 'manage-heading' }, 'Subject access and erasure');
    if (!this.session.can('manage'))
      return lackingSection(
        heading,
        'Exporting and erasing need the manage permission, which this key lacks.',
      );
    const messages = new Messages();
    const exportButton = h('button', { type: 'button' }, 'Download their data (subject-access export)');
    exportButton.addEventListener('click', () => {
      busy(exportButton, async () => {
        const response = await this.session.call(`/people/${person.id}/data`);
        download(`person-${person.id}-data.json`, await response.blob());
        messages.info(`Downloaded person-${person.id}-data.json.`);
      }).catch((problem) => messages.error(problem, 'The export failed'));
    });

    const expected = [person.member_number, fullName(person)].filter(
      (value): value is string => value !== null,
    );
    const confirm = field(
      person.member_number === null
        ? `To erase, type their full name (${fullName(person)})`
        : `To erase, type their member number (${person.member_number}) or full name`,
      { autocomplete: 'off' },
      'Erasing removes their names, contacts and IDs for good; membership dates stay for the statistics.',
    );
    const erase = h('button', { type: 'submit', class: 'danger' }, 'Erase this person');
    const form = h(
      'form',
      {
        'aria-label': 'Erase this person',
        onsubmit: (event) => {
          event.preventDefault();
          const typed = confirm.input.value.trim();
          if (!expected.includes(typed)) {
            messages.error(
              new Error(
                `Not erased: type ${expected.map((value) => `“${value}”`).join(' or ')} exactly to confirm.`,
              ),
            );
            confirm.input.focus();
            return;
          }
          busy(erase, async () => {
            const response = await this.session.call(`/people/${person.id}`, { method: 'DELETE' });
            const answer = await json<{ erased: number }>(response);
            this.erased(answer.erased);
          }).catch((problem) => messages.error(problem, 'Not erased'));
        },
      },
      confirm.wrapper,
      h('div', { class: 'actions' }, erase),
    );
    return h(
      'section',
      { 'aria-labelledby': 'manage-heading' },
      heading,
      h('div', { class: 'actions' }, exportButton),
      form,
      messages.element,
    );
  }
}
