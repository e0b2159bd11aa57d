import express, { type Request, type Response } from 'express';
import { DESK_ASSETS, DESK_PAGE, deskDirectory } from './desk-files';
import { HttpError } from './http-error';
import { methodNotAllowed } from './method-not-allowed';

/**
 * The page's own policy, stricter than helmet's default for the API: scripts, styles and calls
 * from this origin only, no inline code or style, no eval, no frames around it, no plugins, no
 * form that submits anywhere (the page sends everything itself: a form submitted natively would
 * put a password in a URL), and Trusted Types required, so that no string can reach an HTML sink
 * even by mistake. No upgrade-insecure-requests: a society may run the service on its own network
 * over plain HTTP, where that would break the page.
 */
export const DESK_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** GET /desk: the secretary's page (SPEC §9), built by `npm run build` into dist/src/desk. */
export function deskRouter(directory: string = deskDirectory()): express.Router {
  const router = express.Router();

  // On every answer under /desk, errors included; the global helmet policy stays the API's.
  router.use('/desk', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', DESK_CONTENT_SECURITY_POLICY);
    next();
  });

  const send = (file: string, res: Response, next: express.NextFunction) => {
    // Revalidated by the file's ETag: a new build is seen at once, an unchanged one costs a 304.
    // The type comes from the file's name (text/html, text/javascript, text/css, with UTF-8).
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(file, { root: directory, dotfiles: 'deny' }, (error) => {
      if (error === undefined || res.headersSent) return;
      next(
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? new HttpError(
              404,
              `the secretary's page is not built here: run npm run build (no ${file} in ${directory})`,
            )
          : error,
      );
    });
  };

  router.get('/desk', (_req: Request, res: Response, next) => send(DESK_PAGE, res, next));
  router.all('/desk', methodNotAllowed('GET'));

  router.get('/desk/assets/:file', (req: Request, res: Response, next) => {
    const file = String(req.params.file);
    if (!(DESK_ASSETS as readonly string[]).includes(file))
      throw new HttpError(404, `no such file: /desk/assets/${file}`);
    send(file, res, next);
  });
  router.all('/desk/assets/:file', methodNotAllowed('GET'));
  return router;
}
