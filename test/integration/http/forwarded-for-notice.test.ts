import request from 'supertest';
import { createTestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { memoryLogger } from '../../support/memory-logger';

const target = testDatabases[0];

describe('X-Forwarded-For while TRUST_PROXY is unset', () => {
  async function notices(env: Record<string, string>): Promise<Record<string, unknown>[]> {
    const log = memoryLogger();
    const t = await createTestApp(target, { env, overrides: { logger: log.logger } });
    try {
      await request(t.app).get('/healthz').expect(200);
      for (const address of ['203.0.113.7', '198.51.100.1', '203.0.113.7']) {
        await request(t.app).get('/healthz').set('X-Forwarded-For', address).expect(200);
      }
      return log.lines().filter((line) => line.event === 'proxy.untrusted');
    } finally {
      await t.close();
    }
  }

  it('is told once in the log, naming the setting, however many requests carry it', async () => {
    const told = await notices({});
    expect(told).toEqual([
      expect.objectContaining({
        level: 'warn',
        proxyAddress: expect.stringMatching(/127\.0\.0\.1|::1/),
        msg: expect.stringContaining('TRUST_PROXY is unset'),
      }),
    ]);
    // The forwarded addresses are the client's to write: not worth a line, nor trusted in one.
    expect(JSON.stringify(told)).not.toContain('203.0.113.7');
  });

  it('is not told when TRUST_PROXY is set: the proxy is expected', async () => {
    expect(await notices({ TRUST_PROXY: 'loopback' })).toEqual([]);
  });
});
