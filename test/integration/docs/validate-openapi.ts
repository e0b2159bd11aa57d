import { execFile } from 'node:child_process';

// swagger-parser's dependencies ship ESM only, which Jest's CommonJS runtime cannot require; Node
// itself can, so the validation runs in a child process.
const SCRIPT = `
const SwaggerParser = require('@apidevtools/swagger-parser');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  SwaggerParser.validate(JSON.parse(input)).then(
    () => process.stdout.write('valid'),
    (error) => { process.stdout.write(String(error.message)); process.exitCode = 1; },
  );
});
`;

/** Resolves to null when swagger-parser finds the document valid, else to its complaint. */
export function openApiProblems(document: object): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['-e', SCRIPT],
      { cwd: process.cwd(), timeout: 20_000 },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout === 'valid' ? null : `unexpected output: ${stdout}`);
        else if (stdout !== '') resolve(stdout);
        else reject(new Error(`the validator did not run: ${stderr || error.message}`));
      },
    );
    child.stdin?.end(JSON.stringify(document));
  });
}
