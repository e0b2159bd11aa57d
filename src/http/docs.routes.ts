import path from 'node:path';
import express, { type Request, type Response } from 'express';
import { HttpError } from './http-error';
import { methodNotAllowed } from './method-not-allowed';

// The files of swagger-ui-dist the page uses, served from the installed package: no CDN, so the
// reference works offline. Only these: the package also holds source maps and its own demo page.
const PACKAGE_FILES = [
  'swagger-ui.css',
  'index.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
] as const;

// Swagger UI's start-up script, as a file of its own: the Content-Security-Policy allows scripts
// from this origin only, never inline ones.
const INITIALIZER = 'docs-init.js';

export const DOCS_ASSET_FILES: readonly string[] = [...PACKAGE_FILES, INITIALIZER];

const INITIALIZER_SCRIPT = `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    displayRequestDuration: true,
    // Swagger UI would otherwise send the document to validator.swagger.io.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Membership Directory API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
    <link rel="stylesheet" href="/docs/assets/index.css">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <noscript>This page needs JavaScript. The API description itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js" charset="utf-8"></script>
    <script src="/docs/assets/${INITIALIZER}" charset="utf-8"></script>
  </body>
</html>
`;

const packageDirectory = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** GET /docs: the API reference (Swagger UI over /openapi.json), and its files under /docs/assets. */
export function docsRouter(): express.Router {
  const router = express.Router();

  router.get('/docs', (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(PAGE);
  });
  router.all('/docs', methodNotAllowed('GET'));

  router.get('/docs/assets/:file', (req: Request, res: Response, next) => {
    const file = String(req.params.file);
    // Revalidated by ETag: the files change only when the package is upgraded.
    res.setHeader('Cache-Control', 'no-cache');
    if (file === INITIALIZER) {
      res.type('js').send(INITIALIZER_SCRIPT);
      return;
    }
    if (!(PACKAGE_FILES as readonly string[]).includes(file)) {
      throw new HttpError(404, `no such file: /docs/assets/${file}`);
    }
    res.sendFile(file, { root: packageDirectory, dotfiles: 'deny' }, (error) => {
      if (error !== undefined && !res.headersSent)
        next(new HttpError(404, `no such file: /docs/assets/${file}`));
    });
  });
  router.all('/docs/assets/:file', methodNotAllowed('GET'));
  return router;
}
