import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';

/** The message loadConfig refuses this environment with (failing the test if it accepts it). */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

/** The NAME=value lines of .env.example, in order. */
function exampleSettings(): [string, string][] {
  const text = readFileSync(path.resolve(__dirname, '../../.env.example'), 'utf8');
  return text
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
}

describe('loadConfig', () => {
  it('gives every setting its default in an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: null,
      databaseUrl: null,
      dataDir: './data',
      directoryTimezone: 'UTC',
      bcryptCost: 12,
      logLevel: 'info',
      redisUrl: null,
      rateLimitPerMinute: 1200,
      trustProxy: false,
      keepAliveTimeoutS: 65,
      streamsPerKey: 4,
      streamsPerInstance: 32,
      webhookConcurrency: 8,
      changesRetentionDays: 30,
      renewalNoticeDays: 30,
      grace: { days: 0, byKind: new Map() },
    });
  });

  it('reads every setting from the environment', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://directory:secret@db.example:5432/directory',
      DATA_DIR: '/var/lib/directory',
      DIRECTORY_TIMEZONE: 'Europe/London',
      BCRYPT_COST: '13',
      LOG_LEVEL: 'warn',
      REDIS_URL: 'rediss://cache.example:6380',
      RATE_LIMIT_PER_MINUTE: '60',
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
      KEEP_ALIVE_TIMEOUT_S: '620',
      STREAMS_PER_KEY: '2',
      STREAMS_PER_INSTANCE: '8',
      WEBHOOK_CONCURRENCY: '16',
      CHANGES_RETENTION_DAYS: '7',
      RENEWAL_NOTICE_DAYS: '0',
      GRACE_DAYS: '14',
      GRACE_DAYS_BY_KIND: 'Student=30, honorary = 0',
    });
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://directory:secret@db.example:5432/directory',
      dataDir: '/var/lib/directory',
      directoryTimezone: 'Europe/London',
      bcryptCost: 13,
      logLevel: 'warn',
      redisUrl: 'rediss://cache.example:6380',
      rateLimitPerMinute: 60,
      trustProxy: 'loopback, 10.0.0.0/8',
      keepAliveTimeoutS: 620,
      streamsPerKey: 2,
      streamsPerInstance: 8,
      webhookConcurrency: 16,
      changesRetentionDays: 7,
      renewalNoticeDays: 0,
      grace: {
        days: 14,
        byKind: new Map([
          ['student', 30],
          ['honorary', 0],
        ]),
      },
    });
  });

  it('compares GRACE_DAYS_BY_KIND kinds by Unicode full case folding, and allows 366 days', () => {
    const { grace } = loadConfig({ GRACE_DAYS: '366', GRACE_DAYS_BY_KIND: 'STRASSE=7,ΣΊΣΥΦΟΣ=366' });
    expect(grace.days).toBe(366);
    expect([...grace.byKind]).toEqual([
      ['strasse', 7],
      ['σίσυφοσ', 366],
    ]);
  });

  it('treats an empty or blank value as unset, and trims values', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '   ', LOG_LEVEL: ' debug ' })).toMatchObject({
      port: 3000,
      databaseUrl: null,
      logLevel: 'debug',
    });
  });

  it('accepts postgresql: URLs and redis: URLs', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://localhost/directory' }).databaseUrl).toBe(
      'postgresql://localhost/directory',
    );
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl).toBe('redis://127.0.0.1:6379');
  });

  it('reads TRUST_PROXY as false, a hop count or a list of proxies', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '192.168.0.1' }).trustProxy).toBe('192.168.0.1');
  });

  it('refuses TRUST_PROXY=true, which would let a client choose its own address, in one line', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(
      /^TRUST_PROXY=true is refused: it trusts an X-Forwarded-For the client chooses; give the number of proxies in front \(e\.g\. 1\) or their addresses$/,
    );
  });

  it('refuses a TRUST_PROXY that Express could not compile, in one line naming the setting', () => {
    for (const bad of ['yes', '10.0.0.0/33', 'loopback, nonsense', '::1/129', '10.0.0.1/255.0.0', 'a\nb']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(ConfigError);
      try {
        loadConfig({ TRUST_PROXY: bad });
      } catch (error) {
        expect((error as Error).message).toMatch(/^TRUST_PROXY must be /);
        expect((error as Error).message).not.toContain('\n');
      }
    }
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/255.0.0.0, ::1/128, uniquelocal' }).trustProxy).toBe(
      '10.0.0.0/255.0.0.0, ::1/128, uniquelocal',
    );
  });

  it('reads HOST as an IPv4 or IPv6 address or a host name', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'localhost', 'api.example.org']) {
      expect(loadConfig({ HOST: host }).host).toBe(host);
    }
  });

  it('refuses a HOST that is not an address or a name, in one line naming the setting', () => {
    for (const bad of [
      '[::1]',
      '127.0.0.1:3000',
      'http://127.0.0.1',
      'under_score',
      'a\nb',
      '-dash.example',
    ]) {
      expect(refusal({ HOST: bad })).toMatch(
        /^HOST must be an IP address \(127\.0\.0\.1, ::1, 0\.0\.0\.0, ::\) or a host name, without brackets or port, not ".*"$/,
      );
    }
  });

  it('keeps its message on one line when a value holds a line break', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'info\nFAKE LOG LINE' })).toThrow(
      /^LOG_LEVEL must be one of .*"info\\nFAKE LOG LINE"$/,
    );
  });

  it('accepts the ends of each range', () => {
    expect(loadConfig({ PORT: '0', BCRYPT_COST: '4', RATE_LIMIT_PER_MINUTE: '1' })).toMatchObject({
      port: 0,
      bcryptCost: 4,
      rateLimitPerMinute: 1,
    });
    expect(loadConfig({ PORT: '65535', BCRYPT_COST: '20', RATE_LIMIT_PER_MINUTE: '1000000' })).toMatchObject({
      port: 65535,
      bcryptCost: 20,
      rateLimitPerMinute: 1_000_000,
    });
  });

  it.each([
    ['PORT', '65536', 'PORT must be a whole number from 0 to 65535, not "65536"'],
    ['PORT', 'http', 'PORT must be a whole number from 0 to 65535, not "http"'],
    ['PORT', '-1', 'PORT must be a whole number from 0 to 65535, not "-1"'],
    ['BCRYPT_COST', '3', 'BCRYPT_COST must be a whole number from 4 to 20, not "3"'],
    ['BCRYPT_COST', '12.5', 'BCRYPT_COST must be a whole number from 4 to 20, not "12.5"'],
    ['RATE_LIMIT_PER_MINUTE', '0', 'RATE_LIMIT_PER_MINUTE must be a whole number from 1 to 1000000, not "0"'],
    ['KEEP_ALIVE_TIMEOUT_S', '0', 'KEEP_ALIVE_TIMEOUT_S must be a whole number from 1 to 3600, not "0"'],
    ['KEEP_ALIVE_TIMEOUT_S', '65s', 'KEEP_ALIVE_TIMEOUT_S must be a whole number from 1 to 3600, not "65s"'],
    ['STREAMS_PER_KEY', '0', 'STREAMS_PER_KEY must be a whole number from 1 to 1000, not "0"'],
    ['CHANGES_RETENTION_DAYS', '0', 'CHANGES_RETENTION_DAYS must be a whole number from 1 to 3650, not "0"'],
    ['GRACE_DAYS', '367', 'GRACE_DAYS must be a whole number from 0 to 366, not "367"'],
    ['GRACE_DAYS', '-1', 'GRACE_DAYS must be a whole number from 0 to 366, not "-1"'],
    [
      'GRACE_DAYS_BY_KIND',
      'student:30',
      'GRACE_DAYS_BY_KIND must be kind=days pairs separated by commas (e.g. student=30), days from 0 to 366, not "student:30"',
    ],
    [
      'GRACE_DAYS_BY_KIND',
      'student=30,=5',
      'GRACE_DAYS_BY_KIND must be kind=days pairs separated by commas (e.g. student=30), days from 0 to 366, not "=5"',
    ],
    [
      'GRACE_DAYS_BY_KIND',
      'student=400',
      'GRACE_DAYS_BY_KIND must be kind=days pairs separated by commas (e.g. student=30), days from 0 to 366, not "student=400"',
    ],
    [
      'GRACE_DAYS_BY_KIND',
      'student=3.5',
      'GRACE_DAYS_BY_KIND must be kind=days pairs separated by commas (e.g. student=30), days from 0 to 366, not "student=3.5"',
    ],
    ['GRACE_DAYS_BY_KIND', 'Student=30,STUDENT=10', 'GRACE_DAYS_BY_KIND gives the kind "STUDENT" twice'],
    ['RENEWAL_NOTICE_DAYS', '-1', 'RENEWAL_NOTICE_DAYS must be a whole number from 0 to 3650, not "-1"'],
    [
      'STREAMS_PER_INSTANCE',
      'many',
      'STREAMS_PER_INSTANCE must be a whole number from 1 to 10000, not "many"',
    ],
    ['WEBHOOK_CONCURRENCY', '0', 'WEBHOOK_CONCURRENCY must be a whole number from 1 to 256, not "0"'],
    [
      'LOG_LEVEL',
      'verbose',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "verbose"',
    ],
    [
      'DIRECTORY_TIMEZONE',
      'Mars/Olympus_Mons',
      'DIRECTORY_TIMEZONE must be an IANA time zone name such as Europe/London, not "Mars/Olympus_Mons"',
    ],
    [
      'DATABASE_URL',
      'mysql://localhost/directory',
      'DATABASE_URL must start with postgres:// or postgresql://',
    ],
    ['DATABASE_URL', 'not a url', 'DATABASE_URL must be a URL (postgres: or postgresql:)'],
    ['REDIS_URL', 'http://cache:6379', 'REDIS_URL must start with redis:// or rediss://'],
    ['REDIS_URL', 'cache:6379:x', 'REDIS_URL must start with redis:// or rediss://'],
  ])('refuses %s=%j with one line naming the setting', (name, value, message) => {
    const text = refusal({ [name]: value });
    expect(text).toBe(message);
    expect(text).not.toContain('\n');
  });

  it('never repeats a connection string, which may hold a password, in its message', () => {
    const text = refusal({ DATABASE_URL: 'mysql://directory:hunter2@db/directory' });
    expect(text).toMatch(/^DATABASE_URL /);
    expect(text).not.toContain('hunter2');
  });

  it('reads the environment it is given, and process.env by default', () => {
    const saved = process.env.PORT;
    process.env.PORT = '4321';
    try {
      expect(loadConfig().port).toBe(4321);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });
});

describe('.env.example', () => {
  it('lists every setting loadConfig reads, and nothing else', () => {
    const read = new Set<string>();
    const recording = new Proxy({} as Record<string, string | undefined>, {
      get(_target, name) {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(recording);
    expect(
      exampleSettings()
        .map(([name]) => name)
        .sort(),
    ).toEqual([...read].sort());
  });

  it('shows each setting with its default', () => {
    expect(loadConfig(Object.fromEntries(exampleSettings()))).toEqual(loadConfig({}));
  });
});
