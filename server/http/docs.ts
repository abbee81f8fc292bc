import { createRequire } from 'node:module';
import path from 'node:path';
import express from 'express';

/**
 * swagger-ui-dist's folder, found without importing the package: its index evaluates 2 MB of browser
 * JavaScript (the bundle and the standalone preset) just to return this path.
 */
const SWAGGER_UI_DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * The API reference: /api/v1/docs (Swagger UI), its assets, and /api/v1/docs/openapi.json. Nothing
 * leaves the server: the assets are served from swagger-ui-dist, the online validator's badge is
 * off (`validatorUrl: null`; it would send the document to validator.swagger.io), and the CSP allows
 * only this origin (docs.browser.test.ts records every request Chromium makes).
 */
export function mountDocs(app: express.Express, buildDocument: () => unknown): void {
  let document: unknown;
  app.get('/api/v1/docs/openapi.json', (_req, res) => res.json((document ??= buildDocument())));
  app.use('/api/v1/docs/assets', express.static(SWAGGER_UI_DIST, { index: false }));
  app.get(['/api/v1/docs', '/api/v1/docs/'], (_req, res) => {
    // No other site may frame the reference (its "Try it out" sends requests with typed-in keys).
    res.setHeader(
      'content-security-policy',
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; script-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    );
    res.setHeader('x-frame-options', 'DENY');
    res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"><title>Latch API reference</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head><body><div id="docs"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: '/api/v1/docs/openapi.json', dom_id: '#docs', deepLinking: true, validatorUrl: null, tryItOutEnabled: false });</script></body></html>`);
  });
}
