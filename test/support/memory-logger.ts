import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger } from '../../src/infrastructure/observability/logger';

/** The production logger, redaction and all, at its most verbose, writing into memory. */
export function memoryLogger() {
  const chunks: string[] = [];
  const logger = createLogger('trace');
  (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const text = () => chunks.join('');
  const lines = () =>
    text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, text, lines };
}
