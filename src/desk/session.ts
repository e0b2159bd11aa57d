import { ApiFailure, type CallOptions, call, type Permission } from './api';
import { h } from './dom';

/** What a permission lets the secretary do on this page, for saying what a key lacks. */
export const NEEDED_FOR: Record<Permission, string> = {
  read: 'searching and opening people, renewals',
  write: 'correcting names and chat IDs',
  manage: 'imports, exports, erasing, subject-access exports and the history of changes',
};

/** A part of the page the key lacks a permission for: its heading, and a line that says so. */
export function lackingSection(heading: HTMLElement, text: string): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': heading.id === '' ? undefined : heading.id },
    heading,
    h('p', { class: 'missing' }, text),
  );
}

/**
 * The signed-in secretary: their key, in this page's memory only (no cookie, no storage, so
 * nothing another site or a later visitor can use), and what it may do.
 */
export class Session {
  constructor(
    readonly username: string,
    readonly key: string,
    readonly keyId: number,
    readonly permissions: readonly Permission[],
    readonly expiresAt: string | null,
    private readonly onKeyRefused: (failure: ApiFailure) => void,
  ) {}

  can(permission: Permission): boolean {
    return this.permissions.includes(permission);
  }

  /** Calls the API with this key; a key the service no longer accepts ends the session. */
  async call(path: string, options: CallOptions = {}): Promise<Response> {
    try {
      return await call(path, { ...options, key: this.key });
    } catch (problem) {
      if (problem instanceof ApiFailure && problem.keyRefused) this.onKeyRefused(problem);
      throw problem;
    }
  }
}
