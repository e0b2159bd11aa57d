#!/usr/bin/env node
/*
 * Waits until the service answers GET /readyz with 200 (migrated, its database serving its
 * queries), or gives up: what the systemd unit runs as ExecStartPost, so that `systemctl start`
 * returns only once the service can serve, and fails when it cannot within the time.
 *
 *   node bin/wait-ready.js [SECONDS]     default 60; exit 0 ready, 1 not within the time
 *
 * It asks the service at the address its own settings give (PORT, HOST, from the same
 * EnvironmentFile): every interface (HOST unset, 0.0.0.0 or ::) is asked on loopback. Plain
 * CommonJS with no dependency, so that it needs nothing built and nothing installed.
 */
const POLL_MS = 250;
// A little longer than /readyz's own 2 s limit on its queries.
const REQUEST_TIMEOUT_MS = 2500;

function readyzUrl(env) {
  const port = env.PORT?.trim() || '3000';
  const host = env.HOST?.trim() || '';
  const address = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}/readyz`;
}

async function answer(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await response.body?.cancel();
    return String(response.status);
  } catch (error) {
    return error.cause?.code ?? error.name ?? 'no answer';
  }
}

async function waitReady(url, seconds) {
  const deadline = Date.now() + seconds * 1000;
  let last = 'no answer';
  while (Date.now() < deadline) {
    last = await answer(url);
    if (last === '200') return { ready: true, last };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { ready: false, last };
}

module.exports = { readyzUrl, waitReady };

if (require.main === module) {
  const seconds = Number(process.argv[2] ?? 60);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    process.stderr.write(`usage: node bin/wait-ready.js [SECONDS], not ${JSON.stringify(process.argv[2])}\n`);
    process.exit(2);
  }
  const url = readyzUrl(process.env);
  waitReady(url, seconds).then(({ ready, last }) => {
    if (ready) return;
    process.stderr.write(`wait-ready: ${url} did not answer 200 within ${seconds} s (last: ${last})\n`);
    process.exit(1);
  });
}
