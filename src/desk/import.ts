import { json } from './api';
import { fill, h, uid } from './dom';
import { busy, Messages, onSubmit } from './messages';
import { lackingSection, type Session } from './session';

interface ImportChange {
  where: string | null;
  action: 'add' | 'update' | 'erase' | 'keep';
  person_id: number | null;
  first_name: string;
  last_name: string;
  changes: { field: string; old: unknown; new: unknown }[];
}
interface ImportAnswer {
  dry_run: boolean;
  summary: { added: number; updated: number; unchanged: number; erased: number; kept: number };
  changes: ImportChange[];
  possible_duplicates: {
    where: string | null;
    person_id: number;
    first_name: string;
    last_name: string;
    reason: string;
  }[];
}

// POST /imports takes up to 10 MiB (IMPORT-API.md).
const MAX_IMPORT_BYTES = 10 * 2 ** 20;

/** The media type POST /imports is told: by the file's name, else by its first character. */
async function contentTypeOf(file: File): Promise<string> {
  const name = file.name.toLowerCase();
  if (name.endsWith('.json')) return 'application/json';
  if (name.endsWith('.csv')) return 'text/csv; charset=utf-8';
  const start = (await file.slice(0, 64).text()).replace(/^\uFEFF/, '').trimStart();
  return start.startsWith('[') ? 'application/json' : 'text/csv; charset=utf-8';
}

/** A value the API sends as JSON text (memberships and contacts), read back; other text as it is. */
function structured(value: string): unknown {
  if (!/^\s*[[{]/.test(value)) return value;
  try {
    const parsed: unknown = JSON.parse(value);
    const isRecord = (item: unknown) => item !== null && typeof item === 'object';
    return isRecord(parsed) && (!Array.isArray(parsed) || parsed.every(isRecord)) ? parsed : value;
  } catch {
    return value;
  }
}

/** A field's old or new value in words: memberships and contacts as lists of their fields, not JSON. */
function shown(value: unknown): string {
  if (typeof value === 'string' && value !== '') {
    const read = structured(value);
    if (read !== value) return shown(read);
  }
  if (value === null || value === undefined || value === '') return '(empty)';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.map(shown).join('; ');
  if (typeof value === 'object')
    return Object.entries(value)
      .map(([name, field]) => `${name} ${shown(field)}`)
      .join(', ');
  return String(value);
}

function who(change: {
  where: string | null;
  person_id: number | null;
  first_name: string;
  last_name: string;
}): string {
  const parts = [`${change.first_name} ${change.last_name}`];
  if (change.person_id !== null) parts.push(`person ${change.person_id}`);
  if (change.where !== null) parts.push(change.where);
  return parts.join(', ');
}

/** Import a roster: the dry run's every change first, then the same file applied on confirmation. */
export function importView(session: Session): HTMLElement {
  const messages = new Messages();
  const heading = h('h2', { id: 'import-heading', tabindex: -1 }, 'Import a roster');
  if (!session.can('manage'))
    return lackingSection(heading, 'Importing needs the manage permission, which this key lacks.');

  const fileId = uid('roster');
  const input = h('input', { id: fileId, type: 'file', accept: '.csv,.json,text/csv,application/json' });
  const chosen = h('p', { class: 'chosen', 'aria-live': 'polite' }, 'No file chosen yet.');
  const removeId = uid('remove');
  const removeMissing = h('input', {
    id: removeId,
    type: 'checkbox',
    'aria-describedby': `${removeId}-hint`,
  });
  const check = h('button', { type: 'submit' }, 'Check the file (dry run)');
  const apply = h('button', { type: 'button', hidden: true }, 'Apply these changes');
  const report = h('div', { class: 'results' });
  let file: File | null = null;
  let checked: { file: File; removeMissing: boolean } | null = null;

  function choose(picked: File | null): void {
    file = picked;
    checked = null;
    apply.hidden = true;
    fill(report);
    messages.clear();
    fill(chosen, picked === null ? 'No file chosen yet.' : `Chosen: ${picked.name} (${picked.size} bytes).`);
  }
  input.addEventListener('change', () => choose(input.files?.[0] ?? null));
  removeMissing.addEventListener('change', () => {
    checked = null;
    apply.hidden = true;
  });

  const zone = h(
    'div',
    { class: 'drop-zone' },
    h('label', { for: fileId }, 'Roster file (CSV or JSON): choose it, or drop it here'),
    input,
    chosen,
  );
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    const dropped = event.dataTransfer?.files;
    if (dropped === undefined || dropped.length === 0) return;
    if (dropped.length > 1) {
      messages.error(new Error('Drop one file at a time.'));
      return;
    }
    choose(dropped[0]);
  });

  async function send(dryRun: boolean): Promise<ImportAnswer> {
    if (file === null) throw new Error('Choose a roster file first.');
    // Said before sending 10 MiB for the service to refuse (413).
    if (file.size > MAX_IMPORT_BYTES)
      throw new Error(
        `${file.name} is ${(file.size / 2 ** 20).toFixed(1)} MiB: an import may be 10 MiB at most.`,
      );
    const query = new URLSearchParams();
    if (dryRun) query.set('dry_run', 'true');
    if (removeMissing.checked) query.set('remove_missing', 'true');
    const response = await session.call(`/imports${query.size === 0 ? '' : `?${query}`}`, {
      method: 'POST',
      body: file,
      contentType: await contentTypeOf(file),
    });
    return json<ImportAnswer>(response);
  }

  function summary(answer: ImportAnswer): string {
    const { added, updated, unchanged, erased, kept } = answer.summary;
    return `${added} added, ${updated} updated, ${unchanged} unchanged, ${erased} erased, ${kept} kept`;
  }

  function showDryRun(answer: ImportAnswer): void {
    const by = (action: ImportChange['action']) =>
      answer.changes.filter((change) => change.action === action);
    const list = (title: string, items: HTMLElement[]) =>
      items.length === 0
        ? null
        : h('section', { class: 'import-part' }, h('h4', {}, title), h('ul', {}, items));
    fill(
      report,
      h('h3', {}, 'What the import would change'),
      h('p', { class: 'summary' }, `${summary(answer)}. Nothing has been written yet.`),
      list(
        `Added (${by('add').length})`,
        by('add').map((change) => h('li', {}, who(change))),
      ),
      list(
        `Updated (${by('update').length})`,
        by('update').map((change) =>
          h(
            'li',
            {},
            who(change),
            h(
              'ul',
              { class: 'fields' },
              change.changes.map((field) =>
                h(
                  'li',
                  {},
                  h('span', { class: 'field-name' }, field.field),
                  `: ${shown(field.old)} → ${shown(field.new)}`,
                ),
              ),
            ),
          ),
        ),
      ),
      h('p', {}, `Unchanged: ${answer.summary.unchanged}.`),
      list(
        `Possible duplicates (${answer.possible_duplicates.length})`,
        answer.possible_duplicates.map((duplicate) => h('li', {}, `${who(duplicate)}: ${duplicate.reason}`)),
      ),
      list(
        `Erased: not in the file (${by('erase').length})`,
        by('erase').map((change) => h('li', {}, who(change))),
      ),
      list(
        `Kept although not in the file: they hold an account (${by('keep').length})`,
        by('keep').map((change) => h('li', {}, who(change))),
      ),
    );
  }

  const form = h(
    'form',
    {
      'aria-labelledby': 'import-heading',
      onsubmit: onSubmit(
        check,
        async () => {
          messages.clear();
          apply.hidden = true;
          fill(report);
          const sent = { file, removeMissing: removeMissing.checked };
          const answer = await send(true);
          showDryRun(answer);
          checked = sent.file === null ? null : { file: sent.file, removeMissing: sent.removeMissing };
          apply.hidden = false;
          messages.info('Dry run done: read the changes below, then apply them or choose another file.');
        },
        (problem) => messages.error(problem, 'The file cannot be imported'),
      ),
    },
    zone,
    h(
      'div',
      { class: 'field checkbox' },
      removeMissing,
      h('label', { for: removeId }, 'Erase the members the file does not list'),
      h(
        'p',
        { id: `${removeId}-hint`, class: 'hint' },
        'People holding an account are kept and listed instead of erased.',
      ),
    ),
    h('div', { class: 'actions' }, check, apply),
  );

  apply.addEventListener('click', () => {
    busy(apply, async () => {
      if (checked === null || checked.file !== file || checked.removeMissing !== removeMissing.checked)
        throw new Error('The file or the options changed since the dry run: check the file again first.');
      const answer = await send(false);
      apply.hidden = true;
      checked = null;
      fill(report, h('h3', {}, 'Import applied'), h('p', { class: 'summary' }, `${summary(answer)}.`));
      messages.info(`The import was applied: ${summary(answer)}.`);
    }).catch((problem) => messages.error(problem, 'The import was not applied'));
  });

  return h('section', { 'aria-labelledby': 'import-heading' }, heading, form, messages.element, report);
}
