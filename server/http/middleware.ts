/** The middlewares every request meets, in the order app.ts mounts them (the fast lane runs the same ones). */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Deps } from '../deps.js';
import { ALL_REQUEST_HEADER_NAMES } from '../trpc/header-dialect.js';

export type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/** One year; sent only over https (see requestTagger). */
const HSTS = 'max-age=31536000';

/**
 * Allowed on cross-origin requests: every x-latch-* request header and its x-stack-* alias (the Stack
 * SDKs' names, trpc/header-dialect.ts), and our response headers exposed.
 */
const ALLOWED_HEADERS = ['content-type', 'authorization', ...ALL_REQUEST_HEADER_NAMES, 'trpc-accept'].join(', ');
const EXPOSED_HEADERS = 'x-latch-known-error, x-stack-known-error, x-latch-request-id, x-latch-actual-status, x-stack-actual-status, retry-after';

/**
 * Gives every request its id (x-latch-request-id), HSTS when served over https, and reports each
 * response's status when it finishes (the /metrics counters).
 */
export function requestTagger(deps: Deps, onFinish: (status: number) => void): Middleware {
  // HSTS whenever Latch is served over https: its public URL is https, or this request came over
  // TLS (a TLS-terminating proxy that LATCH_TRUST_PROXY trusts says so with X-Forwarded-Proto).
  // No includeSubDomains: the operator's other hosts are not ours to pin.
  const httpsBase = deps.env.baseUrl?.toLowerCase().startsWith('https://') ?? false;
  return (req, res, next) => {
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('x-latch-request-id', requestId);
    if (httpsBase || ((req.headers['x-forwarded-proto'] !== undefined || (req.socket as { encrypted?: boolean }).encrypted) && req.secure)) {
      res.setHeader('strict-transport-security', HSTS);
    }
    res.on('finish', () => onFinish(res.statusCode));
    next();
  };
}

/**
 * CORS and no-store for /api. Browser clients (the SDK, the console on another origin) call the
 * API directly. Auth is by headers, never cookies, so echoing the origin grants nothing a script
 * could not do anyway.
 */
export function apiHeaders(deps: Deps): Middleware {
  return (req, res, next) => {
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
}
