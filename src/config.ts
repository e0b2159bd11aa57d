import { isIP } from 'node:net';
import { type Grace, graceOf, MAX_GRACE_DAYS } from './domain/grace';
import { characterProblem, foldCase } from './domain/text';
import { familyCoveredByAll, proxyEntryRanges } from './trusted-proxies';

/** Settings, read from the environment and validated once at start-up. */
export interface Config {
  port: number;
  /** Address the HTTP API listens on; null: every interface (IPv6 and IPv4 where the system has both). */
  host: string | null;
  /** PostgreSQL connection string; when absent the service runs on embedded PGlite in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  directoryTimezone: string;
  bcryptCost: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  redisUrl: string | null;
  rateLimitPerMinute: number;
  /**
   * Express `trust proxy` setting, so that client addresses are right behind a load balancer:
   * false, a hop count, or the proxies' addresses (never `true`).
   */
  trustProxy: false | number | string;
  /** How long an idle keep-alive connection stays open: longer than a load balancer's (often 60 s). */
  keepAliveTimeoutS: number;
  /** Unpaged searches longer than a page that may run at once for one key, and in one process. */
  streamsPerKey: number;
  streamsPerInstance: number;
  /** Webhook deliveries sent at once by this process. */
  webhookConcurrency: number;
  /** How long the change feed keeps changes; a cursor older than that is answered 410. */
  changesRetentionDays: number;
  /** Days before a current membership's end date that membership.ending is told; 0: never. */
  renewalNoticeDays: number;
  /** Days after its end date that a membership keeps its holder in good standing, by kind. */
  grace: Grace;
}

export class ConfigError extends Error {}

/** Quotes a setting's value for a message that must stay on one line, whatever the value holds. */
function quote(value: string): string {
  return JSON.stringify(value);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not ${quote(raw)}`);
  }
  return Number(raw);
}

function timezone(env: Env, name: string): string {
  const raw = text(env, name) ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: raw });
  } catch {
    throw new ConfigError(`${name} must be an IANA time zone name such as Europe/London, not ${quote(raw)}`);
  }
  return raw;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = text(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')})`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

// A name is resolved by the system when the server listens; an address with brackets or a port is
// a URL's spelling, not an address.
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function host(env: Env): string | null {
  const raw = text(env, 'HOST');
  if (raw === null || isIP(raw) !== 0 || HOST_NAME.test(raw)) return raw;
  throw new ConfigError(
    `HOST must be an IP address (127.0.0.1, ::1, 0.0.0.0, ::) or a host name, without brackets or port, not ${quote(raw)}`,
  );
}

function trustProxy(env: Env): false | number | string {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === null || raw === 'false') return false;
  // `true` takes the left-most X-Forwarded-For address, which the client writes itself: any
  // client could then pick the address the login lockout counts.
  if (raw === 'true') {
    throw new ConfigError(
      'TRUST_PROXY=true is refused: it trusts an X-Forwarded-For the client chooses; give the number of proxies in front (e.g. 1) or their addresses',
    );
  }
  if (/^\d+$/.test(raw)) return Number(raw);
  // Checked here so that a bad value is a one-line start-up error, not an exception from Express.
  const ranges = raw.split(',').map((entry) => proxyEntryRanges(entry.trim()));
  if (ranges.some((entry) => entry === null)) {
    throw new ConfigError(
      `TRUST_PROXY must be false, a hop count, or a comma-separated list of addresses, subnets or loopback/linklocal/uniquelocal, not ${quote(raw)}`,
    );
  }
  // Trusting every address is `true` in other words: any client could choose its own address.
  const everything = familyCoveredByAll(ranges.flatMap((entry) => entry ?? []));
  if (everything !== null) {
    throw new ConfigError(
      `TRUST_PROXY ${quote(raw)} is refused: it trusts every ${everything} address, so any client could choose its own address in X-Forwarded-For; give the number of proxies in front (e.g. 1) or their own addresses`,
    );
  }
  return raw;
}

/** `kind=days` pairs, comma-separated; each kind once, whatever its case. */
function graceByKind(env: Env, name: string): [string, number][] {
  const raw = text(env, name);
  if (raw === null) return [];
  const pairs: [string, number][] = [];
  const seen = new Set<string>();
  for (const entry of raw.split(',')) {
    const match = /^(.+)=\s*(\d+)$/s.exec(entry.trim());
    const kind = match?.[1].trim() ?? '';
    if (
      match === null ||
      kind === '' ||
      characterProblem(kind) !== null ||
      Number(match[2]) > MAX_GRACE_DAYS
    ) {
      throw new ConfigError(
        `${name} must be kind=days pairs separated by commas (e.g. student=30), days from 0 to ${MAX_GRACE_DAYS}, not ${quote(entry.trim())}`,
      );
    }
    const folded = foldCase(kind.normalize('NFC'));
    if (seen.has(folded)) throw new ConfigError(`${name} gives the kind ${quote(kind)} twice`);
    seen.add(folded);
    pairs.push([kind.normalize('NFC'), Number(match[2])]);
  }
  return pairs;
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${quote(logLevel)}`);
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: host(env),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: text(env, 'DATA_DIR') ?? './data',
    directoryTimezone: timezone(env, 'DIRECTORY_TIMEZONE'),
    bcryptCost: integer(env, 'BCRYPT_COST', 12, 4, 20),
    logLevel: logLevel as Config['logLevel'],
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 1200, 1, 1_000_000),
    trustProxy: trustProxy(env),
    keepAliveTimeoutS: integer(env, 'KEEP_ALIVE_TIMEOUT_S', 65, 1, 3600),
    streamsPerKey: integer(env, 'STREAMS_PER_KEY', 4, 1, 1000),
    streamsPerInstance: integer(env, 'STREAMS_PER_INSTANCE', 32, 1, 10_000),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 8, 1, 256),
    changesRetentionDays: integer(env, 'CHANGES_RETENTION_DAYS', 30, 1, 3650),
    renewalNoticeDays: integer(env, 'RENEWAL_NOTICE_DAYS', 30, 0, 3650),
    grace: graceOf(integer(env, 'GRACE_DAYS', 0, 0, MAX_GRACE_DAYS), graceByKind(env, 'GRACE_DAYS_BY_KIND')),
  };
}
