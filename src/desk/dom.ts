// The page's only way of building elements. Text goes in as text nodes and attributes through
// setAttribute: nothing the directory holds (a name like `<img src=x onerror=…>`) is ever parsed
// as HTML, and handlers are functions, never inline code (the Content-Security-Policy forbids it).

export type Child = Node | string | number | null | undefined | false | readonly Child[];
type Handler = (event: Event) => void;
export type Props = Record<string, string | number | boolean | null | undefined | Handler>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') {
      if (!name.startsWith('on')) throw new Error(`a handler needs an on… name, not ${name}`);
      element.addEventListener(name.slice(2), value);
    } else if (name.startsWith('on') || name === 'style') {
      throw new Error(`no inline ${name}: the page's Content-Security-Policy refuses it`);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

export function append(parent: Element | DocumentFragment, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (typeof child === 'string' || typeof child === 'number')
      parent.append(document.createTextNode(String(child)));
    else parent.append(child as Node);
  }
}

/** Replaces an element's content. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let counter = 0;
/** An id for tying a label or a description to its field. */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** Offers `content` as a file to save, named `name`. */
export function download(name: string, content: Blob): void {
  const url = URL.createObjectURL(content);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has started the download by now; the URL is only needed for that.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A labelled text field: the label, the input and, if given, a hint tied to it. */
export function field(
  label: string,
  props: Props = {},
  hint?: string,
): { wrapper: HTMLDivElement; input: HTMLInputElement } {
  const id = uid('field');
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  const input = h('input', { id, type: 'text', 'aria-describedby': hintId, ...props });
  const wrapper = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint === undefined ? null : h('p', { id: hintId, class: 'hint' }, hint),
    input,
  );
  return { wrapper, input };
}
