import { existsSync } from 'node:fs';

// Debian's headless shell (package chromium-headless-shell, built from the same source as its
// chromium) when installed: Chromium's page engine without the browser's window code, the build
// Playwright itself uses for headless runs. Against the full browser in headless mode: two renderer
// processes fewer and about 1.5-2 s less CPU in the browser process per run (docs/performance.md,
// the docs-page test's second session of 26 November 2026). Otherwise the full browser (chromium).
export const CHROMIUM = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'].find((path) =>
  existsSync(path),
);

// As root on a machine with no outside network: no sandbox, and none of Chromium's own traffic.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
