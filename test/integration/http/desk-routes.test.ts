import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { deskDirectory } from '../../../src/http/desk-files';
import { DESK_CONTENT_SECURITY_POLICY, deskRouter } from '../../../src/http/desk.routes';
import { errorHandler } from '../../../src/http/error-handler';
import { HttpError } from '../../../src/http/http-error';

/** The router alone over a directory of our own, with the app's error handler after it. */
function appOver(directory: string): express.Express {
  const app = express();
  app.use(deskRouter(directory));
  app.use((req, _res, next) => next(new HttpError(404, `no such endpoint: ${req.method} ${req.path}`)));
  app.use(errorHandler);
  return app;
}

describe('GET /desk and its files', () => {
  // As npm run build leaves it (Jest's global setup builds it when it is missing or stale).
  const built = deskDirectory();
  let empty: string;

  beforeAll(() => {
    empty = mkdtempSync(path.join(tmpdir(), 'desk-empty-'));
  });
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it('serves the page, its script and its stylesheet with their types, revalidated by ETag', async () => {
    const app = appOver(built);
    const page = await request(app).get('/desk').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<script src="/desk/assets/desk.js" defer></script>');
    const script = await request(app).get('/desk/assets/desk.js').expect(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const style = await request(app).get('/desk/assets/desk.css').expect(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(style.headers['cache-control']).toBe('no-cache');
    await request(app).get('/desk/assets/desk.css').set('If-None-Match', style.headers.etag).expect(304);
  });

  it('sends its strict Content-Security-Policy on every answer under /desk, errors included', async () => {
    const app = appOver(built);
    for (const [url, expected] of [
      ['/desk', 200],
      ['/desk/assets/desk.js', 200],
      ['/desk/assets/other.js', 404],
      ['/desk/assets/..%2Fpackage.json', 404],
    ] as const) {
      const res = await request(app).get(url);
      expect(`${url} ${res.status}`).toBe(`${url} ${expected}`);
      expect(res.headers['content-security-policy']).toBe(DESK_CONTENT_SECURITY_POLICY);
    }
    expect(DESK_CONTENT_SECURITY_POLICY).toMatch(/default-src 'self'/);
    expect(DESK_CONTENT_SECURITY_POLICY).toMatch(/script-src 'self';/);
    expect(DESK_CONTENT_SECURITY_POLICY).toMatch(/connect-src 'self'/);
    expect(DESK_CONTENT_SECURITY_POLICY).toMatch(/frame-ancestors 'none'/);
    expect(DESK_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('leaves other paths alone: /desktop is not the page', async () => {
    const res = await request(appOver(built)).get('/desktop');
    expect(res.status).toBe(404);
    expect(res.headers['content-security-policy']).toBeUndefined();
  });

  it('answers other methods with 405 and Allow', async () => {
    const res = await request(appOver(built)).post('/desk');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('says how to build the page when it was not built, rather than failing blankly', async () => {
    const res = await request(appOver(empty)).get('/desk');
    expect(res.status).toBe(404);
    expect(res.body.errors[0]).toMatch(/not built here: run npm run build/);
  });
});
