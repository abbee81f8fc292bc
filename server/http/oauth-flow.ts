/**
 * The browser legs of the OAuth flow (server/domains/oauth/flow.ts): plain express routes, not
 * procedures, because they answer with redirects and pages rather than JSON.
 *
 * - GET  /api/v1/auth/oauth/authorize/{provider}: redirect to the provider (sets the flow cookie).
 * - GET  /api/v1/auth/oauth/callback/{provider}: the provider's redirect back.
 * - POST /api/v1/auth/oauth/callback/{provider}: the same, for Apple's response_mode=form_post.
 *
 * Errors before the app's error_redirect_url is known (or when it is not given) are a small HTML
 * page with the catalogued code and message (and x-latch-known-error), never a 500 for a reloaded
 * callback or reused code; with error_redirect_url the browser goes there with `error` (the code)
 * and `error_description` (the message).
 */
import type { Request, Response } from 'express';
import { setKnownErrorHeaders } from '../trpc/header-dialect.js';
import type { Deps } from '../deps.js';
import { toWireError } from '../errors/wire.js';
import { clientIp } from '../trpc/context.js';
import { CallbackError, FLOW_COOKIE_PREFIX, handleCallback, startAuthorize } from '../domains/oauth/flow.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function isHttps(deps: Deps, req: Request): boolean {
  return req.secure || (deps.env.baseUrl?.toLowerCase().startsWith('https://') ?? false);
}

function readCookies(req: Request): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name.startsWith(FLOW_COOKIE_PREFIX)) continue;
    try {
      cookies[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // an unreadable cookie is no cookie
    }
  }
  return cookies;
}

function sendErrorPage(deps: Deps, req: Request, res: Response, error: unknown): void {
  const requestId = String(res.locals.requestId);
  const wire = toWireError(error, requestId);
  if (wire.unexpected) {
    deps.log.error(`unexpected error on ${req.method} ${req.path} (request ${requestId})`, {
      error: wire.unexpected instanceof Error ? (wire.unexpected.stack ?? wire.unexpected.message) : String(wire.unexpected),
    });
  }
  if (res.headersSent) return;
  res.status(wire.status);
  setKnownErrorHeaders(res, wire.body.code);
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
  res
    .type('html')
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><title>Sign-in failed</title></head><body style="font-family:sans-serif;max-width:40rem;margin:4rem auto">` +
        `<h1>Sign-in failed</h1><p>${escapeHtml(wire.body.error)}</p><p><code>${escapeHtml(wire.body.code)}</code></p></body></html>`,
    );
}

export async function handleOAuthAuthorize(deps: Deps, req: Request, res: Response): Promise<void> {
  try {
    const query: Record<string, string | undefined> = {};
    for (const [key, value] of Object.entries(req.query)) if (typeof value === 'string') query[key] = value;
    const result = await startAuthorize(deps, String(req.params.provider), query);
    const https = isHttps(deps, req);
    // Apple posts the callback cross-site: a Lax cookie would not come along, so that one is None (which needs Secure).
    const sameSite = result.cookie.crossSitePost ? 'SameSite=None; Secure' : `SameSite=Lax${https ? '; Secure' : ''}`;
    res.append(
      'set-cookie',
      `${result.cookie.name}=${encodeURIComponent(result.cookie.value)}; Max-Age=${result.cookie.maxAgeSeconds}; Path=/api/v1/auth/oauth/callback; HttpOnly; ${sameSite}`,
    );
    res.setHeader('cache-control', 'no-store');
    res.redirect(302, result.location);
  } catch (error) {
    sendErrorPage(deps, req, res, error);
  }
}

export async function handleOAuthCallback(deps: Deps, req: Request, res: Response): Promise<void> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(req.query)) if (typeof value === 'string') params.append(key, value);
  if (req.method === 'POST' && typeof req.body === 'object' && req.body !== null)
    for (const [key, value] of Object.entries(req.body as Record<string, unknown>)) if (typeof value === 'string') params.set(key, value);
  res.setHeader('cache-control', 'no-store');
  const start = performance.now();
  try {
    const { location, providerMillis } = await handleCallback(deps, String(req.params.provider), params, readCookies(req), clientIp(req));
    // Where a slow sign-in's time went: waiting on the provider, or in Latch (W3C Server-Timing).
    const total = performance.now() - start;
    res.setHeader('server-timing', `provider;dur=${providerMillis.toFixed(1)}, latch;dur=${(total - providerMillis).toFixed(1)}`);
    const state = params.get('state');
    // The flow's cookie has done its job.
    if (state) res.append('set-cookie', `${FLOW_COOKIE_PREFIX}${state}=; Max-Age=0; Path=/api/v1/auth/oauth/callback; HttpOnly; SameSite=Lax`);
    res.redirect(302, location);
  } catch (error) {
    const cause = error instanceof CallbackError ? error.error : error;
    if (error instanceof CallbackError && error.errorRedirectUrl) {
      const wire = toWireError(cause, String(res.locals.requestId));
      if (!wire.unexpected) {
        const target = new URL(error.errorRedirectUrl);
        target.searchParams.set('error', wire.body.code);
        target.searchParams.set('error_description', wire.body.error);
        res.redirect(302, target.toString());
        return;
      }
    }
    sendErrorPage(deps, req, res, cause);
  }
}
