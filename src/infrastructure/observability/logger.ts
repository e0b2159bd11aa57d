import pino, { type Logger } from 'pino';
import type { Config } from '../../config';

/** Never written to a log, wherever it appears in a logged object. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.authorization',
  '*.password',
  '*.passwordHash',
  '*.token',
  '*.tokenHash',
];

/**
 * `destination` defaults to standard output; tests pass a stream to read what would be logged.
 * Levels by name and times in ISO 8601: what an operator reads and greps (`"level":"warn"`)
 * without a lookup table, at the price of a few bytes a line.
 */
export function createLogger(level: Config['logLevel'], destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
