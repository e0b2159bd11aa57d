// Every call the page makes to the directory's API, from the same origin, and how each failure is
// put into words: the API's own messages, or a plain sentence when there is no answer to show.

import type { Permission } from '../domain/permission';

// The API's own spellings, so that the page cannot drift from them: a person's fields as the API
// view lists them (a type only: none of its code is bundled), and the permissions.
export type { PersonView as Person } from '../application/people/person-view';
export { PERMISSIONS, type Permission } from '../domain/permission';

export interface IssuedKey {
  id: number;
  token: string;
  permissions: Permission[];
  expires_at: string | null;
}

/** A request that did not succeed: its status (null when no answer came) and what to say. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number | null,
    readonly messages: string[],
  ) {
    super(messages.join('; '));
  }

  /** The key itself is refused (expired, revoked, account disabled), not just short of a permission. */
  get keyRefused(): boolean {
    return this.status === 401 && !this.messages.some((message) => /lacks the \w+ permission/.test(message));
  }
}

const NO_ANSWER =
  'No answer from the directory service: the network is down or the service is not running. Check the connection and try again.';

async function messagesOf(response: Response): Promise<string[]> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { errors?: unknown };
    if (Array.isArray(body.errors) && body.errors.length > 0) return body.errors.map(String);
  } catch {
    // Not JSON: a proxy's page, say. Its status is all there is to tell.
  }
  const status = `${response.status} ${response.statusText}`.trim();
  return [`The service answered ${status} with no message.`];
}

export interface CallOptions {
  method?: string;
  key?: string | null;
  /** Sent as JSON unless it is a Blob (a file, sent as it is with `contentType`). */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Calls the API; answers the Response when its status is 2xx, throws ApiFailure otherwise. */
export async function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.key) headers.Authorization = `Bearer ${options.key}`;
  let body: BodyInit | undefined;
  if (options.body instanceof Blob) {
    body = options.body;
    headers['Content-Type'] = options.contentType ?? 'application/octet-stream';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] = 'application/json';
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body,
      // Nothing is remembered by the browser: the key lives in this page's memory only.
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiFailure(null, [NO_ANSWER]);
  }
  if (response.ok) return response;
  const messages = await messagesOf(response);
  if (response.status === 503) {
    throw new ApiFailure(503, [
      'The directory is unavailable right now (its database cannot be reached, or it is busy): nothing was changed. Try again in a minute.',
      ...messages,
    ]);
  }
  if (response.status === 429) {
    const wait = response.headers.get('Retry-After');
    throw new ApiFailure(429, [...messages, ...(wait === null ? [] : [`Try again in ${wait} seconds.`])]);
  }
  throw new ApiFailure(response.status, messages);
}

/** The body of a successful answer as JSON, or a failure saying the answer was unreadable. */
export async function json<T>(response: Response): Promise<T> {
  try {
    return (await response.json()) as T;
  } catch {
    throw new ApiFailure(response.status, ['The service sent an answer the page cannot read (not JSON).']);
  }
}

/** `Basic` credentials for a username and password in UTF-8, as POST /keys expects them. */
export function basicCredentials(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
