import { randomBytes } from 'node:crypto';
import { CreateDemoDirectory } from '../../application/demo/create-demo-directory';
import { defineCommand } from '../command';
import { printLine } from '../write-text';

export const demoCommand = defineCommand({
  path: ['demo'],
  summary: 'fill an empty directory with demo data and a demo account',
  description: [
    'Creates about fifty members of three clubs, with current, past and future memberships, a few',
    'admins, and the account "demo" (permissions read, write and manage) with a random password.',
    "Prints the password, the secretary's page to sign in to, and a curl command to get a key.",
    'Refused when the directory already holds',
    'people or the demo account exists.',
  ].join('\n'),
  async run({ io, config, container }) {
    // base64url: letters, digits, - and _, so the password pastes into a shell without quoting trouble.
    const password = randomBytes(15).toString('base64url');
    const demo = await container.get(CreateDemoDirectory).execute({ password });
    const base = `http://localhost:${config.port}`;
    for (const line of [
      `created the demo directory: ${demo.people} people in ${demo.clubs} clubs, ${demo.admins} admins`,
      '',
      `username: ${demo.username}`,
      `password: ${password}`,
      `permissions: ${demo.permissions.join(',')}`,
      '',
      "With the service running (npm start), sign in to the secretary's page with them:",
      `  ${base}/desk`,
      'or get a key:',
      `  curl -s -X POST -u '${demo.username}:${password}' ${base}/keys`,
      'and search people with the token it returns:',
      `  curl -s -H 'Authorization: Bearer TOKEN' ${base}/people`,
    ]) {
      printLine(io.stdout, line);
    }
  },
});
