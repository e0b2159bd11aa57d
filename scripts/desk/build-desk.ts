import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { DESK_PAGE, deskDirectory, projectRoot } from '../../src/http/desk-files';

/** Writes a file whole or not at all: a service reading it meanwhile never gets half of it. */
function writeWhole(file: string, content: string | Uint8Array): void {
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, content);
  renameSync(aside, file);
}

/**
 * Builds the secretary's page (src/desk) into `outDir`: its TypeScript bundled into one script
 * for the browsers of the last few years, its stylesheet and its HTML copied beside it.
 */
export async function buildDesk(outDir: string = deskDirectory()): Promise<void> {
  const source = path.join(projectRoot(__dirname), 'src', 'desk');
  // esbuild is a dev dependency: the bundle is made at build time, and the service only serves it.
  const result = await build({
    entryPoints: [path.join(source, 'main.ts')],
    bundle: true,
    format: 'iife',
    target: ['chrome111', 'firefox114', 'safari16.4'],
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    tsconfig: path.join(source, 'tsconfig.json'),
  });
  mkdirSync(outDir, { recursive: true });
  writeWhole(path.join(outDir, 'desk.js'), result.outputFiles[0].contents);
  for (const file of ['desk.css', DESK_PAGE])
    writeWhole(path.join(outDir, file), readFileSync(path.join(source, file)));
}

if (require.main === module) {
  buildDesk().then(
    () => console.log(`built the secretary's page into ${path.relative(process.cwd(), deskDirectory())}`),
    (error: unknown) => {
      console.error(
        `could not build the secretary's page: ${error instanceof Error ? error.message : error}`,
      );
      process.exitCode = 1;
    },
  );
}
