import { join, resolve } from 'node:path';

// This file runs as dist/scripts/bench/paths.js: the built service sits two folders up.
const dist = resolve(__dirname, '..', '..');

export const paths = {
  repository: resolve(dist, '..'),
  serviceMain: join(dist, 'src', 'main.js'),
  cliMain: join(dist, 'src', 'cli', 'main.js'),
  baselineServer: join(__dirname, 'baseline-server.js'),
  baselinePgliteSetup: join(__dirname, 'baseline-pglite-setup.js'),
  slowStreams: join(__dirname, 'slow-streams.js'),
  pageLoops: join(__dirname, 'page-loops.js'),
  peakRss: join(__dirname, 'peak-rss.js'),
  results: join(resolve(dist, '..'), 'bench-results'),
};
