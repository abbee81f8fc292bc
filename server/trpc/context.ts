/**
 * The tRPC request context: reads the x-latch-* headers and the client IP of a request, and resolves
 * the caller lazily (once, memoised) through the access layer (server/access/resolve.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Deps } from '../deps.js';
import type { AuthContext, LatchHeaders } from '../access/context.js';
import { resolveAuth } from '../access/resolve.js';
import { resolveClientIp, type TrustProxyFn } from './client-ip.js';

export interface RequestContext {
  deps: Deps;
  requestId: string;
  ip: string | null;
  headers: LatchHeaders;
  /** Resolves (once, memoised) the caller's auth; null when no access type was sent. */
  getAuth: () => Promise<AuthContext | null>;
  /** The same without reading the access token: for refresh, where it may well have expired. */
  getProjectAuth: () => Promise<AuthContext | null>;
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? null : first;
}

export function parseLatchHeaders(req: IncomingMessage): LatchHeaders {
  return {
    projectId: header(req, 'x-latch-project-id'),
    branchId: header(req, 'x-latch-branch-id'),
    accessType: header(req, 'x-latch-access-type'),
    accessToken: header(req, 'x-latch-access-token'),
    refreshToken: header(req, 'x-latch-refresh-token'),
    publishableClientKey: header(req, 'x-latch-publishable-client-key'),
    secretServerKey: header(req, 'x-latch-secret-server-key'),
    superSecretAdminKey: header(req, 'x-latch-super-secret-admin-key'),
    adminAccessToken: header(req, 'x-latch-admin-access-token'),
    allowAnonymousUser: header(req, 'x-latch-allow-anonymous-user') === 'true',
    workflowToken: header(req, 'x-latch-workflow-token'),
    authHeader: header(req, 'x-latch-auth'),
  };
}

/**
 * The caller's IP (client-ip.ts): the socket address, or an X-Forwarded-For entry handed over by
 * proxies the operator trusts ('trust proxy' in app.ts, from LATCH_TRUST_PROXY; default: none).
 * Never anything but a valid IP address. One source for REST, tRPC and OAuth.
 */
export function clientIp(req: IncomingMessage): string | null {
  const app = (req as IncomingMessage & { app?: { get(name: string): unknown } }).app;
  const trust = app?.get('trust proxy fn');
  return resolveClientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], typeof trust === 'function' ? (trust as TrustProxyFn) : null);
}

export function createRequestContext(deps: Deps, req: IncomingMessage, requestId: string = randomUUID()): RequestContext {
  const headers = parseLatchHeaders(req);
  let auth: Promise<AuthContext | null> | null = null;
  let projectAuth: Promise<AuthContext | null> | null = null;
  return {
    deps,
    requestId,
    ip: clientIp(req),
    headers,
    getAuth: () => (auth ??= resolveAuth(deps, headers)),
    getProjectAuth: () => (projectAuth ??= resolveAuth(deps, headers, { ignoreAccessToken: true })),
  };
}
