import type { SqlRepositories } from './repositories';

/** Answers when the service can serve its queries; rejects otherwise. */
export type ReadinessProbe = () => Promise<void>;

// Neither can match: a token hash is 64 hex digits, a chat_id at most 64 characters.
const NO_TOKEN_HASH = 'readiness-probe';
const NO_CHAT_ID = `readiness-probe-${'-'.repeat(64)}`;

/**
 * What `GET /readyz` runs: the two queries nearly every request makes, through the adapters (not
 * the caches) and the connection pool the requests use: a bearer credential's lookup (api_keys
 * and people) and a person's lookup rendered as the API answers it (people, contacts,
 * memberships, clubs). A plain `SELECT 1` answered while the tables were missing, renamed, out of
 * the search path or unreadable to the session's role, and every request failed with 500.
 */
export function readinessProbe(repositories: Pick<SqlRepositories, 'keys' | 'people'>): ReadinessProbe {
  return async () => {
    await repositories.keys.findByTokenHash(NO_TOKEN_HASH);
    await repositories.people.searchRendered(
      { filter: { chatId: NO_CHAT_ID }, today: '2000-01-01', lookup: true },
      1,
    );
  };
}
