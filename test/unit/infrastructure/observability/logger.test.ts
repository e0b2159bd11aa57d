import { Writable } from 'node:stream';
import { createLogger } from '../../../../src/infrastructure/observability/logger';

function loggedLines(write: (logger: ReturnType<typeof createLogger>) => void): Record<string, unknown>[] {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  write(createLogger('info', destination));
  return chunks
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the service log', () => {
  it('names each line’s level and stamps it in ISO 8601 UTC, as an operator reads and greps them', () => {
    const before = Date.now();
    const lines = loggedLines((logger) => {
      logger.info('started');
      logger.warn({ event: 'redis.lost' }, 'Redis lost');
      logger.error('failed');
      logger.debug('not written at info');
    });
    expect(lines.map((line) => line.level)).toEqual(['info', 'warn', 'error']);
    for (const line of lines) {
      expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(String(line.time))).toBeGreaterThanOrEqual(before - 1000);
    }
  });

  it('still redacts secrets wherever they appear', () => {
    const [line] = loggedLines((logger) => logger.info({ account: { password: 'hunter2' } }, 'x'));
    expect(JSON.stringify(line)).not.toContain('hunter2');
  });
});
