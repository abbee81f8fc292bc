/**
 * The tRPC request context: reads the x-latch-* headers (or their x-stack-* aliases) and the client IP of a request, and resolves
 * the caller lazily (once, memoised) through the access layer (server/access/resolve.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Deps } from '../deps.js';
import type { AuthContext, LatchHeaders } from '../access/context.js';
import { resolveAuth } from '../access/resolve.js';
import { resolveClientIp, type TrustProxyFn } from './client-ip.js';
import { headerNames } from './header-dialect.js';

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

/** The caller's credential headers, in its dialect (header-dialect.ts: x-latch-*, or Stack's x-stack-*). */
export function parseLatchHeaders(req: IncomingMessage): LatchHeaders {
  const names = headerNames(req.headers);
  return {
    projectId: header(req, names.projectId),
    branchId: header(req, names.branchId),
    accessType: header(req, names.accessType),
    accessToken: header(req, names.accessToken),
    refreshToken: header(req, names.refreshToken),
    publishableClientKey: header(req, names.publishableClientKey),
    secretServerKey: header(req, names.secretServerKey),
    superSecretAdminKey: header(req, names.superSecretAdminKey),
    adminAccessToken: header(req, names.adminAccessToken),
    allowAnonymousUser: header(req, names.allowAnonymousUser) === 'true',
    workflowToken: header(req, names.workflowToken),
    authHeader: header(req, names.auth),
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
  // Whether no answer can reach the client any more: queued costly work (a password hash) is dropped.
  const clientGone = () => req.socket?.destroyed === true;
  return {
    deps,
    requestId,
    ip: clientIp(req),
    headers,
    getAuth: () => (auth ??= resolveAuth(deps, headers, { clientGone })),
    getProjectAuth: () => (projectAuth ??= resolveAuth(deps, headers, { ignoreAccessToken: true, clientGone })),
  };
}
