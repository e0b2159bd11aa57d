import { download, h } from './dom';
import { busy, Messages } from './messages';
import { lackingSection, type Session } from './session';

/** The file name the service gives in Content-Disposition, else one of our own. */
function fileName(response: Response, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '');
  return match?.[1] ?? fallback;
}

const EXPORTS = [
  {
    label: 'Everyone, as CSV (a spreadsheet that import reads back)',
    query: 'format=csv',
    extension: 'csv',
  },
  { label: 'Current members, as CSV for a mail merge', query: 'format=csv&current=true', extension: 'csv' },
  { label: 'Everyone, as JSON', query: 'format=json', extension: 'json' },
] as const;

/** Export: the whole directory (GET /export), as the command line's export writes it. */
export function exportView(session: Session): HTMLElement {
  const heading = h('h2', { id: 'export-heading', tabindex: -1 }, 'Export the directory');
  if (!session.can('manage'))
    return lackingSection(heading, 'Exporting needs the manage permission, which this key lacks.');
  const messages = new Messages();
  const buttons = EXPORTS.map(({ label, query, extension }) => {
    const button = h('button', { type: 'button' }, label);
    button.addEventListener('click', () => {
      busy(button, async () => {
        messages.clear();
        const response = await session.call(`/export?${query}`, { headers: { Accept: '*/*' } });
        const name = fileName(response, `members.${extension}`);
        download(name, await response.blob());
        messages.info(`Downloaded ${name}.`);
      }).catch((problem) => messages.error(problem, 'The export failed'));
    });
    return h('li', {}, button);
  });
  return h(
    'section',
    { 'aria-labelledby': 'export-heading' },
    heading,
    h('p', {}, 'Admins and erased people are never in an export.'),
    h('ul', { class: 'exports' }, buttons),
    messages.element,
  );
}
