import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';

const here = path.dirname(fileURLToPath(import.meta.url));
const ADMIN_DIST = path.resolve(here, '../../dist/admin-web');
const ADMIN_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data:',
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The admin console (a single-page app, built by `npm install` / `npm start`) when it has been
 * built; otherwise a pointer to the docs. Mounted last: it answers every path nothing else did.
 */
export function mountConsoleApp(app: express.Express): void {
  if (existsSync(path.join(ADMIN_DIST, 'index.html'))) {
    const indexHtml = readFileSync(path.join(ADMIN_DIST, 'index.html'), 'utf8');
    // Vite names every asset by its content hash: a year of caching is safe, a new build has new names.
    app.use('/assets', express.static(path.join(ADMIN_DIST, 'assets'), { index: false, immutable: true, maxAge: '365d' }));
    app.use('/assets', (_req, res) => res.status(404).type('text/plain').send('Not found'));
    // Client-side routes get index.html, never cached, so a new build is picked up on the next load.
    // API, health and metrics paths are never the console's: an unknown one stays a 404.
    app.get('/{*any}', (req, res, next) => {
      if (/^\/(api|health|metrics)(\/|$)/.test(req.path)) return next();
      res.setHeader('cache-control', 'no-cache');
      // The console holds an owner's session: only its own scripts run, it talks only to this
      // server, and no other site may frame it. Images may come from anywhere (project logos);
      // emails are shown in a sandboxed srcdoc frame, which inherits this policy.
      res.setHeader('content-security-policy', ADMIN_CSP);
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'same-origin');
      res.type('html').send(indexHtml);
    });
  } else {
    app.get('/', (_req, res) => {
      res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"><title>Latch</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>Latch is running</h1><p>The REST API is at <code>/api/v1</code> (<a href="/api/v1/docs">API reference</a>), tRPC at <code>/api/trpc</code>, health at <a href="/health">/health</a>.</p>
<p>The admin console has not been built into this install.</p></body></html>`);
    });
  }
}
