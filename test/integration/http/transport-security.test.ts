import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';

// Pages and answers that have nothing to do with the database: one database is enough.
const [target] = testDatabases;

const PAGES = ['/docs', '/docs/assets/docs-init.js', '/openapi.json', '/healthz', '/nowhere'];

describe('HSTS and upgrade-insecure-requests follow the transport the request came over', () => {
  let behindProxy: TestApp;
  let direct: TestApp;

  beforeAll(async () => {
    behindProxy = await createTestApp(target, { env: { TRUST_PROXY: 'loopback' } });
    direct = await createTestApp(target, { database: behindProxy.database });
  });
  afterAll(async () => {
    await direct.close();
    await behindProxy.close();
  });

  it.each(PAGES)(
    '%s over plain HTTP: neither, so a browser reaching it by a host name loads it',
    async (page) => {
      const res = await request(behindProxy.app).get(page).set('Host', 'clubpi.lan:3000');
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(res.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
      // The rest of the policy is unchanged: scripts from this origin only.
      expect(res.headers['content-security-policy']).toMatch(/(^|;)script-src 'self'(;|$)/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    },
  );

  it.each(PAGES)('%s behind a trusted TLS proxy (X-Forwarded-Proto: https): both', async (page) => {
    const res = await request(behindProxy.app)
      .get(page)
      .set('Host', 'directory.example.org')
      .set('X-Forwarded-Proto', 'https');
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(res.headers['content-security-policy']).toMatch(/(^|;)upgrade-insecure-requests(;|$)/);
    expect(res.headers['content-security-policy']).toMatch(/(^|;)script-src 'self'(;|$)/);
  });

  it('ignores X-Forwarded-Proto from a client that is not a trusted proxy', async () => {
    const res = await request(direct.app).get('/docs').set('X-Forwarded-Proto', 'https');
    expect(res.status).toBe(200);
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
  });
});
