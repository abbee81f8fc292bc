/**
 * The admin console's session cookie (issue 13 item 12: "the console's tokens in HttpOnly cookies
 * or memory"). The console is a same-origin single-page app; an owner's refresh token is the key to
 * every project they own for a year, so no script may read it: it lives in an HttpOnly cookie that
 * only these three same-origin endpoints see. The short-lived access token stays in the page's
 * memory (admin-web/api.ts), and a reload gets a new one from here.
 *
 * - `POST /api/console/session` `{refresh_token}`: right after sign-in or sign-up, moves the new
 *   session's refresh token into the cookie (checked live first) and answers `{access_token}`.
 * - `POST /api/console/session/refresh`: a fresh access token for the cookie's session.
 * - `DELETE /api/console/session`: forgets the cookie (the SDK has signed the session out already).
 *
 * Cross-site use is refused three ways: the cookie is `SameSite=Strict` (and `Secure` over https);
 * every call must carry `x-latch-console: 1`, a header no cross-origin page can send without a
 * preflight the API does not allow; and a request with an `Origin` must come from this server's own
 * origin. Only the internal project's sessions are accepted (owners are its users).
 */
import express, { type Request, type Response } from 'express';
import type { Deps } from '../deps.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { INTERNAL_PROJECT_ID } from '../../contract/config/project-config.js';
import { refreshAccessToken } from '../domains/sessions/refresh.js';
import { clientIp, parseLatchHeaders } from '../trpc/context.js';
import { resolveAuth } from '../access/resolve.js';
import { sendError } from '../trpc/rest.js';
import { succeed } from '../trpc/operation.js';

export const CONSOLE_COOKIE = 'latch-console-refresh';
const COOKIE_PATH = '/api/console';
const MAX_AGE_SECONDS = 31_536_000;

function isHttps(deps: Deps, req: Request): boolean {
  return req.secure || (deps.env.baseUrl?.toLowerCase().startsWith('https://') ?? false);
}

function setCookie(deps: Deps, req: Request, res: Response, value: string | null): void {
  const attributes = [`Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Strict', ...(isHttps(deps, req) ? ['Secure'] : [])];
  res.append(
    'set-cookie',
    value === null
      ? [`${CONSOLE_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ')
      : [`${CONSOLE_COOKIE}=${encodeURIComponent(value)}`, `Max-Age=${MAX_AGE_SECONDS}`, ...attributes].join('; '),
  );
}

function readCookie(req: Request): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === CONSOLE_COOKIE) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim()) || null;
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** The same-origin checks; throws the catalogued refusal. */
function checkSameOrigin(req: Request): void {
  if (req.headers['x-latch-console'] !== '1') throw new KnownErrors.SchemaError('Console session calls must send the header x-latch-console: 1.');
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `${req.protocol}://${req.headers.host ?? ''}`) {
    throw new KnownErrors.SchemaError('Console session calls are accepted only from the console itself (same origin).');
  }
}

async function internalAccessToken(deps: Deps, req: Request, refreshToken: string | null): Promise<string> {
  const auth = await resolveAuth(deps, {
    ...parseLatchHeaders(req),
    projectId: INTERNAL_PROJECT_ID,
    branchId: null,
    accessType: 'client',
    accessToken: null,
    authHeader: null,
    publishableClientKey: null,
    secretServerKey: null,
    superSecretAdminKey: null,
    adminAccessToken: null,
  });
  if (!auth) throw new KnownErrors.ClientAuthenticationRequired();
  return refreshAccessToken(deps, auth.tenancy, refreshToken, clientIp(req));
}

export function consoleSessionRouter(deps: Deps): express.Router {
  const router = express.Router();
  const json = express.json({ limit: '4kb' });
  const handle = (run: (req: Request, res: Response) => Promise<unknown>) => (req: Request, res: Response) => {
    run(req, res).then(
      (body) => res.json(body),
      (error: unknown) => {
        // A refresh token that no longer works is forgotten, so the console starts signed out.
        if (error instanceof KnownErrors.RefreshTokenNotFoundOrExpired) setCookie(deps, req, res, null);
        sendError(req, res, deps, String(res.locals.requestId), error);
      },
    );
  };

  router.post(
    '/session',
    json,
    handle(async (req, res) => {
      checkSameOrigin(req);
      const refreshToken = (req.body as { refresh_token?: unknown } | undefined)?.refresh_token;
      if (typeof refreshToken !== 'string' || refreshToken.length === 0 || refreshToken.length > 512) {
        throw new KnownErrors.SchemaError('Request validation failed:\n  - refresh_token must be the refresh token of a console session', {
          issues: [{ path: 'refresh_token', message: 'must be the refresh token of a console session' }],
        });
      }
      const accessToken = await internalAccessToken(deps, req, refreshToken);
      setCookie(deps, req, res, refreshToken);
      return { access_token: accessToken };
    }),
  );

  router.post(
    '/session/refresh',
    handle(async (req) => {
      checkSameOrigin(req);
      return { access_token: await internalAccessToken(deps, req, readCookie(req)) };
    }),
  );

  router.delete(
    '/session',
    handle(async (req, res) => {
      checkSameOrigin(req);
      setCookie(deps, req, res, null);
      return succeed();
    }),
  );
  router.use((req: Request, res: Response) =>
    sendError(req, res, deps, String(res.locals.requestId), new KnownErrors.RouteNotFound(`${req.method} ${req.originalUrl}`)),
  );
  return router;
}
