#!/usr/bin/env node
// The tool as a command of its own (package.json "bin"): `npx membership-directory export > FILE`
// writes only the export, where `npm run cli` would print npm's banner lines first. Otherwise the
// same as `npm run cli -- ...`: it runs in the project's folder (where a relative DATA_DIR such as
// the default ./data is), relative FILE arguments name files where the user is (npm's INIT_CWD, as
// npm sets it for `npm run cli`: src/cli/caller-directory.ts), and dist/ is built first when it
// must be (bin/launch.js).
const { join } = require('node:path');

process.env.INIT_CWD = process.cwd();
process.env.npm_lifecycle_event = 'cli';
process.chdir(join(__dirname, '..'));
require('./launch').launch('cli', process.argv.slice(2));
