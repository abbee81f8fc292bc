/**
 * The request-header dialects Latch reads: its own `x-latch-*` names and, so that an app written for
 * the official Stack Auth SDKs (`@stackframe/js`, `@stackframe/react`) runs unchanged against Latch,
 * the same headers under `x-stack-*`. A request speaks one dialect, chosen once per request by its
 * project-id / access-type headers: x-stack-* is read only when neither x-latch-project-id nor
 * x-latch-access-type was sent and an x-stack one was. A Latch request pays one header lookup for
 * this, and every header is then read by one precomputed name (no per-request strings or copies).
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface HeaderNames {
  projectId: string;
  branchId: string;
  accessType: string;
  clientVersion: string;
  accessToken: string;
  refreshToken: string;
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
  adminAccessToken: string;
  allowAnonymousUser: string;
  randomNonce: string;
  overrideErrorStatus: string;
  workflowToken: string;
  auth: string;
}

const SUFFIXES: HeaderNames = {
  projectId: 'project-id',
  branchId: 'branch-id',
  accessType: 'access-type',
  clientVersion: 'client-version',
  accessToken: 'access-token',
  refreshToken: 'refresh-token',
  publishableClientKey: 'publishable-client-key',
  secretServerKey: 'secret-server-key',
  superSecretAdminKey: 'super-secret-admin-key',
  adminAccessToken: 'admin-access-token',
  allowAnonymousUser: 'allow-anonymous-user',
  randomNonce: 'random-nonce',
  overrideErrorStatus: 'override-error-status',
  workflowToken: 'workflow-token',
  auth: 'auth',
};

function prefixed(prefix: string): Readonly<HeaderNames> {
  return Object.freeze(Object.fromEntries(Object.entries(SUFFIXES).map(([key, suffix]) => [key, `${prefix}-${suffix}`])) as unknown as HeaderNames);
}

export const LATCH_HEADERS = prefixed('x-latch');
/** Stack Auth's names for the same headers (its SDKs send X-Stack-*; node lower-cases them). */
export const STACK_HEADERS = prefixed('x-stack');

/** Every request header name either dialect may send (the CORS allow list). */
export const ALL_REQUEST_HEADER_NAMES: readonly string[] = [...Object.values(LATCH_HEADERS), ...Object.values(STACK_HEADERS)];

/** The dialect of a request's headers (see the file comment). */
export function headerNames(headers: IncomingHttpHeaders): Readonly<HeaderNames> {
  if (headers['x-latch-project-id'] !== undefined || headers['x-latch-access-type'] !== undefined) return LATCH_HEADERS;
  return headers['x-stack-project-id'] !== undefined || headers['x-stack-access-type'] !== undefined ? STACK_HEADERS : LATCH_HEADERS;
}

/** The known-error response headers: Latch's, and Stack's, which its SDKs check against the body's code. */
export const KNOWN_ERROR_HEADER = 'x-latch-known-error';
export const STACK_KNOWN_ERROR_HEADER = 'x-stack-known-error';
/** With override-error-status: the real status; the Stack SDK reads x-stack-actual-status. */
export const ACTUAL_STATUS_HEADER = 'x-latch-actual-status';
export const STACK_ACTUAL_STATUS_HEADER = 'x-stack-actual-status';

/** Sets both known-error headers on a response (anything with setHeader: express, node:http). */
export function setKnownErrorHeaders(res: { setHeader(name: string, value: string): unknown }, code: string): void {
  res.setHeader(KNOWN_ERROR_HEADER, code);
  res.setHeader(STACK_KNOWN_ERROR_HEADER, code);
}
