import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Deps } from './deps.js';
import { KnownErrors } from '../contract/errors/known-errors.js';
import { KnownError } from '../contract/errors/known-error.js';
import { toWireError } from './errors/wire.js';
import { findInputProblem } from '../contract/validation/schemas.js';
import { createRequestContext } from './trpc/context.js';
import { buildOpenApiDocument } from './trpc/openapi.js';
import { createRestDispatcher, sendError } from './trpc/rest.js';
import { appRouter } from './router.js';
import { handleOAuthToken } from './http/oauth-token.js';
import { readLeanJsonBody } from './json-body.js';
import { refuseLongUrl } from './http/client-error.js';
import { metricsAccessError } from './http/metrics-access.js';
import { consoleSessionRouter } from './http/console-session.js';
import { sql } from 'kysely';

const here = path.dirname(fileURLToPath(import.meta.url));
const ADMIN_DIST = path.resolve(here, '../dist/admin-web');
/**
 * swagger-ui-dist's folder, found without importing the package: its index evaluates 2 MB of browser
 * JavaScript (the bundle and the standalone preset) just to return this path.
 */
const SWAGGER_UI_DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ADMIN_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", 'img-src * data:', "connect-src 'self'",
  "frame-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

/** One year; sent only over https (see tagRequest). */
const HSTS = 'max-age=31536000';

/** Allowed on cross-origin requests: every x-latch-* request header, and our response headers exposed. */
const ALLOWED_HEADERS = [
  'content-type', 'authorization', 'x-latch-project-id', 'x-latch-branch-id', 'x-latch-access-type', 'x-latch-client-version',
  'x-latch-access-token', 'x-latch-refresh-token', 'x-latch-publishable-client-key', 'x-latch-secret-server-key',
  'x-latch-super-secret-admin-key', 'x-latch-admin-access-token', 'x-latch-allow-anonymous-user', 'x-latch-random-nonce',
  'x-latch-override-error-status', 'x-latch-workflow-token', 'x-latch-auth', 'trpc-accept',
].join(', ');
const EXPOSED_HEADERS = 'x-latch-known-error, x-latch-request-id, x-latch-actual-status, retry-after';

/** The most calls one tRPC batch request may carry. */
export const TRPC_MAX_BATCH_SIZE = 10;

interface Metrics {
  requests: Map<string, number>;
}

export function createApp(deps: Deps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Responses are no-store API answers: hashing each body for an ETag (express's default) buys nothing.
  app.set('etag', false);
  app.set('trust proxy', deps.env.trustProxy);
  const metrics: Metrics = { requests: new Map() };
  // Bench only (LATCH_BENCH_STATS=1, used by bench/run.ts): event-loop delay since the previous /metrics read.
  const loopDelay = process.env.LATCH_BENCH_STATS === '1' ? monitorEventLoopDelay({ resolution: 10 }) : null;
  loopDelay?.enable();
  const dispatcher = createRestDispatcher(appRouter, deps);
  const openApiDocument = buildOpenApiDocument(appRouter);

  // HSTS whenever Latch is served over https: its public URL is https, or this request came over
  // TLS (a TLS-terminating proxy that LATCH_TRUST_PROXY trusts says so with X-Forwarded-Proto).
  // No includeSubDomains: the operator's other hosts are not ours to pin.
  const httpsBase = deps.env.baseUrl?.toLowerCase().startsWith('https://') ?? false;
  const tagRequest = (req: Request, res: Response, next: NextFunction) => {
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('x-latch-request-id', requestId);
    if (httpsBase || ((req.headers['x-forwarded-proto'] !== undefined || (req.socket as { encrypted?: boolean }).encrypted) && req.secure)) {
      res.setHeader('strict-transport-security', HSTS);
    }
    res.on('finish', () => {
      const key = String(res.statusCode);
      metrics.requests.set(key, (metrics.requests.get(key) ?? 0) + 1);
    });
    next();
  };
  app.use(tagRequest);

  // CORS: browser clients (the SDK, the console on another origin) call the API directly. Auth is
  // by headers, never cookies, so echoing the origin grants nothing a script could not do anyway.
  const apiHeaders = (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origin && (deps.env.corsOrigins === null || deps.env.corsOrigins.includes(origin))) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'origin');
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('access-control-allow-methods', 'GET, POST, PATCH, PUT, DELETE, OPTIONS');
      res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
      res.setHeader('access-control-max-age', '86400');
      res.status(204).end();
      return;
    }
    res.setHeader('cache-control', 'no-store');
    next();
  };
  app.use('/api', apiHeaders);

  app.get('/health', async (_req, res) => {
    try {
      await sql`select 1`.execute(deps.db);
      res.json({ status: 'ok', database: 'ok' });
    } catch {
      res.status(503).json({ status: 'error', database: 'unreachable' });
    }
  });

  app.get('/metrics', (req, res) => {
    const denied = metricsAccessError(req, deps.env.metricsToken);
    if (denied) {
      if (denied.status === 401) res.setHeader('www-authenticate', 'Bearer realm="latch-metrics"');
      res.setHeader('cache-control', 'no-store');
      sendError(req, res, deps, String(res.locals.requestId), denied);
      return;
    }
    const lines = ['# HELP latch_http_responses_total HTTP responses by status.', '# TYPE latch_http_responses_total counter'];
    for (const [status, count] of metrics.requests) lines.push(`latch_http_responses_total{status="${status}"} ${count}`);
    const memory = process.memoryUsage();
    lines.push('# TYPE latch_process_resident_memory_bytes gauge', `latch_process_resident_memory_bytes ${memory.rss}`);
    if (loopDelay) {
      // The histogram counts the 10 ms sampling interval itself; subtract it to get the delay.
      const ms = (ns: number) => Math.max(0, ns / 1e6 - 10).toFixed(2);
      lines.push('# TYPE latch_event_loop_delay_p99_ms gauge', `latch_event_loop_delay_p50_ms ${ms(loopDelay.percentile(50))}`, `latch_event_loop_delay_p99_ms ${ms(loopDelay.percentile(99))}`, `latch_event_loop_delay_max_ms ${ms(loopDelay.max)}`);
      loopDelay.reset();
    }
    res.type('text/plain; version=0.0.4').send(`${lines.join('\n')}\n`);
  });

  app.get('/api/v1/docs/openapi.json', (_req, res) => res.json(openApiDocument));
  app.use('/api/v1/docs/assets', express.static(SWAGGER_UI_DIST, { index: false }));
  app.get(['/api/v1/docs', '/api/v1/docs/'], (_req, res) => {
    // No other site may frame the reference (its "Try it out" sends requests with typed-in keys).
    res.setHeader('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; script-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
    res.setHeader('x-frame-options', 'DENY');
    res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"><title>Latch API reference</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head><body><div id="docs"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: '/api/v1/docs/openapi.json', dom_id: '#docs', deepLinking: true });</script></body></html>`);
  });

  const parseJson = express.json({ limit: '2mb', strict: false, type: ['application/json', 'application/*+json'] });
  // Procedures refuse unstorable input themselves (trpc/procedures.ts); two places need it earlier:
  // the tRPC adapter re-serializes the parsed body (absurd nesting overflows the stack before any
  // procedure runs), and the OAuth route reads its body directly.
  const guardBody = (options: { checkStrings: boolean }) => (req: Request, res: Response, next: NextFunction) => {
    const problem = findInputProblem(req.body, options);
    if (!problem) return next();
    sendError(req, res, deps, String(res.locals.requestId), new KnownErrors.SchemaError(`Request validation failed:\n  - ${problem.path} ${problem.message}`, { issues: [problem] }));
  };
  const jsonBody = [parseJson, guardBody({ checkStrings: false })];
  const oauthBody = [parseJson, express.urlencoded({ extended: false, limit: '64kb' }), guardBody({ checkStrings: true })];

  app.post('/api/v1/auth/oauth/token', oauthBody, (req: Request, res: Response) => handleOAuthToken(deps, req, res));
  // The console keeps the owner's refresh token in an HttpOnly cookie (http/console-session.ts).
  app.use('/api/console', consoleSessionRouter(deps));

  app.use('/api/trpc', jsonBody, createExpressMiddleware({
    router: appRouter,
    // One HTTP request carried ~780 sign-ups before: every per-request defence (body size, the
    // request count a proxy sees) was one request. Larger batches are a SCHEMA_ERROR before any
    // call runs; each call of a batch counts against the rate limits on its own. The SDK does not
    // batch (httpLink).
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    createContext: ({ req, res }) => createRequestContext(deps, req, String(res.locals.requestId)),
    // One call: the status and known-error header of its error, as on REST. Batches keep tRPC's 207.
    responseMeta({ errors, paths, ctx }) {
      const first = errors[0];
      if (!first || (paths?.length ?? 0) > 1) return {};
      const wire = toWireError(first, ctx?.requestId ?? 'unknown');
      return { status: wire.status, headers: { 'x-latch-known-error': wire.body.code } };
    },
    onError({ error, ctx }) {
      if (error.code === 'INTERNAL_SERVER_ERROR' && !(error.cause && 'status' in error.cause)) {
        deps.log.error(`unexpected tRPC error (request ${ctx?.requestId ?? 'unknown'})`, { error: error.cause?.stack ?? error.message });
      }
    },
  }));

  app.use('/api/v1', jsonBody, (req: Request, res: Response) => {
    void dispatcher.handle(req, res);
  });
  hotPaths.set(app, { tagRequest, apiHeaders, parseJson, guardBody: guardBody({ checkStrings: false }), dispatcher, handleError: (error, req, res) => handleUncaught(error, req, res) });

  // The admin console (a single-page app, built by `npm install` / `npm start`) when it has been
  // built; otherwise a pointer to the docs.
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

  // Body-parser failures (malformed JSON, too large) and anything else that escaped a route.
  const handleUncaught = (error: unknown, req: Request, res: Response) => {
    const status = (error as { status?: number; type?: string }).status;
    const type = (error as { type?: string }).type;
    let mapped: unknown = error;
    if (type === 'entity.too.large' || status === 413) mapped = new KnownErrors.PayloadTooLarge();
    else if (type === 'entity.parse.failed' || type === 'charset.unsupported' || type === 'encoding.unsupported') mapped = new KnownErrors.BodyParsingError('The request body is not valid JSON.');
    // body-parser's other refusals (a body that does not match its content-encoding, a length that
    // does not match content-length, an aborted upload) carry a 4xx status and no catalogued code.
    else if (typeof status === 'number' && status >= 400 && status < 500 && !(error instanceof KnownError)) mapped = new KnownErrors.BodyParsingError('The request body could not be read (check content-encoding and content-length).');
    sendError(req, res, deps, String(res.locals.requestId), mapped);
  };
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => handleUncaught(error, req, res));
  return app;
}

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

interface HotPathParts {
  tagRequest: Middleware;
  apiHeaders: Middleware;
  parseJson: Middleware;
  guardBody: Middleware;
  dispatcher: ReturnType<typeof createRestDispatcher>;
  handleError: (error: unknown, req: Request, res: Response) => void;
}

const hotPaths = new WeakMap<express.Express, HotPathParts>();

/** The two calls every signed-in client makes most: the exact paths, no query string. */
const HOT_ROUTES = new Set(['GET /api/v1/users/me', 'POST /api/v1/auth/sessions/current/refresh']);

/**
 * The node:http handler: the app, with a lean path for the hottest routes. A hot request skips
 * only express's router (its walk over every mounted layer and path pattern); it runs the same
 * middlewares as through the app, in the same order (request id and metrics, CORS and no-store,
 * the JSON body parser — or, for a small plain JSON body, json-body.ts — and its guard), then the same REST dispatcher (auth context, procedure,
 * errors, DTOs), and body-parser failures go to the same error mapping. Anything else, including
 * other spellings of these paths, goes through express.
 */
export function createRequestHandler(deps: Deps): (req: IncomingMessage, res: ServerResponse) => void {
  const app = createApp(deps);
  const parts = hotPaths.get(app)!;
  return (rawReq, rawRes) => {
    if (refuseLongUrl(rawReq, rawRes)) return;
    if (!HOT_ROUTES.has(`${rawReq.method} ${rawReq.url}`)) {
      app(rawReq, rawRes);
      return;
    }
    // What express.handle and its router do before a route runs, for the fields our code reads.
    const req = rawReq as Request;
    const res = rawRes as Response;
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    res.locals = Object.create(null) as Response['locals'];
    req.originalUrl = req.url;
    const fail = (error: unknown) => parts.handleError(error, req, res);
    try {
      const afterBody = (error?: unknown) => {
        if (error) return fail(error);
        parts.guardBody(req, res, () => void parts.dispatcher.handle(req, res));
      };
      parts.tagRequest(req, res, () => parts.apiHeaders(req, res, () => {
        if (!readLeanJsonBody(req, afterBody)) parts.parseJson(req, res, afterBody);
      }));
    } catch (error) {
      fail(error);
    }
  };
}
