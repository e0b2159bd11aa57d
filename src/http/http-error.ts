/**
 * A failure that exists only at the HTTP edge (a wrong method, an unsupported media type): the
 * domain has no word for it, so it carries its status and headers itself.
 */
export class HttpError extends Error {
  readonly messages: string[];

  constructor(
    readonly status: number,
    messages: string | string[],
    readonly headers: Record<string, string> = {},
  ) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list.join('; '));
    this.messages = list;
    this.name = 'HttpError';
  }
}
