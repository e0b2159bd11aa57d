import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { createLogger } from '../../../src/infrastructure/observability/logger';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { basic } from '../multi-instance/instances';

describe.each(testDatabases)('where a token may appear, on $name', (target) => {
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    // The service's own logger (with its redaction), at its most talkative, writing here.
    const destination = new PassThrough();
    destination.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    t = await createTestApp(target, {
      env: { RATE_LIMIT_PER_MINUTE: '3' },
      overrides: { logger: createLogger('trace', destination) },
    });
  });
  afterAll(() => t.close());

  it('is shown in full once, in the 201 of POST /keys, and never in logs, listings, revocations or the database', async () => {
    const account = await t.createAccount({ password: 'a long and secret password' });
    const issued = await request(t.app)
      .post('/keys')
      .set('Authorization', basic(account.username, account.password))
      .send({ name: 'laptop' })
      .expect(201);
    const token: string = issued.body.token;
    expect(token).toMatch(/^mdk_[0-9A-Za-z]{38}$/);
    const bearer = `Bearer ${token}`;

    // Every path a token takes: success, listings, a wrong token, the rate limit, revocation, reuse.
    const listed = await request(t.app).get('/keys').set('Authorization', bearer).expect(200);
    await request(t.app).get('/people').set('Authorization', bearer).expect(200);
    await request(t.app)
      .get('/keys')
      .set('Authorization', `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)
      .expect(401);
    await request(t.app).post('/keys').set('Authorization', basic(account.username, 'wrong')).expect(401);
    await request(t.app).get('/keys').set('Authorization', bearer).expect(200);
    await request(t.app).get('/keys').set('Authorization', bearer).expect(429);
    const other = await t.issueToken(account.username, account.password);
    const revoked = await request(t.app)
      .delete(`/keys/${issued.body.id}`)
      .set('Authorization', `Bearer ${other}`)
      .expect(200);
    await request(t.app).get('/keys').set('Authorization', bearer).expect(401);
    await new Promise((resolve) => setImmediate(resolve));

    const mine = listed.body.find((key: { id: number }) => key.id === issued.body.id);
    expect(mine.token).toBe(`${token.slice(0, 8)}…`);
    expect(JSON.stringify(listed.body)).not.toContain(token.slice(8));
    expect(revoked.body.token).toBe(`${token.slice(0, 8)}…`);
    expect(JSON.stringify(revoked.body)).not.toContain(token.slice(8));

    const log = lines.join('');
    expect(log).toContain('request completed');
    // Not the token, not its secret part, not the Basic credentials or the password.
    expect(log).not.toContain(token.slice(4, 20));
    expect(log).not.toContain(token.slice(-20));
    expect(log).not.toContain(account.password);
    expect(log).not.toContain(Buffer.from(`${account.username}:${account.password}`).toString('base64'));

    const rows: Record<string, unknown>[] = await t.database.dataSource.query(
      'SELECT * FROM api_keys WHERE id = $1',
      [issued.body.id],
    );
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(token.slice(8));
    expect(rows[0].token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(rows[0].prefix).toBe(token.slice(0, 8));
  });
});
