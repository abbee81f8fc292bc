/**
 * The SDK's wire: a small client of tRPC's HTTP protocol (`/api/trpc`) that batches the calls
 * issued in the same tick into one HTTP request (at most TRPC_MAX_BATCH_SIZE, and only calls with
 * the same headers), over a `fetch` that implements the spec's client behaviour on responses
 * (section 7):
 * - 429 with Retry-After: wait that many seconds, then retry;
 * - 508 with code INFINITE_LOOP_DETECTED: retry;
 * - network failure: idempotent calls are retried up to 5 times after 1000 ms × 2^n × random(0.5–1.5);
 *   other calls throw at once (they may have reached the server: a retry could do them twice);
 * - offline (`navigator.onLine === false`): the spec's offline message;
 * - the `x-latch-known-error` header must name the body's code, else an assertion error (in a
 *   batch, the header lists each call's code, empty for a call that succeeded).
 * Each call of a batch settles on its own: one failing call rejects with its own known error and
 * the others resolve. Only `type AppRouter` is imported from the server, and tRPC's client only
 * as a type: no server code, and no tRPC runtime, reaches a client bundle.
 */
import type { TRPCClient } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AccessType } from '../contract/access-type.js';
import type { AppRouter } from '../server/router.js';
import { LatchAssertionError, LatchNetworkError, OFFLINE_MESSAGE, errorOfTrpcShape } from './errors.js';

/** Inputs of every procedure, e.g. `RouterInputs['users']['create']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** Outputs of every procedure, e.g. `RouterOutputs['users']['list']`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
/** The typed tRPC client the apps call through. */
export type LatchTrpcClient = TRPCClient<AppRouter>;

/** Sent as `x-latch-client-version`. */
export const SDK_VERSION = 'latch-sdk@0.1.0';

/** Where a self-hosted Latch listens by default (`npm start`). */
export const DEFAULT_BASE_URL = 'http://localhost:8400';

export const MAX_RETRIES = 5;

/** The most calls in one batch: the server's limit (`TRPC_MAX_BATCH_SIZE`). */
export const MAX_BATCH_SIZE = 10;

/** A batch of queries goes in the URL: past this length, the next query starts another request. */
const MAX_BATCH_URL_LENGTH = 4000;

/**
 * Whether a mutation is safe to send twice, by its name: the operations served as DELETE on REST
 * (HTTP's idempotent methods: delete…, revoke…, remove…, leave, signOut) and the refresh (refresh
 * tokens are not rotated, so a repeat returns another valid access token). Queries (GET) are always
 * idempotent. A rule rather than a list: the list cost bytes in every browser bundle, and
 * sdk/transport.test.ts checks the rule against the router both ways (every DELETE matches it,
 * nothing else does), so a new DELETE whose name does not follow it fails there.
 */
export function isIdempotentMutation(path: string): boolean {
  return /\.(delete|revoke|remove|leave|signOut$|refresh$)/.test(path);
}

/** The access level an app calls with: the contract's `AccessType` (`x-latch-access-type`). */
export type AccessLevel = AccessType;

/**
 * What one call sends, passed as the tRPC operation context and turned into `x-latch-*` headers.
 */
export interface CallContext {
  [key: string]: unknown;
  access: AccessLevel;
  /** Overrides the app's project (the owner calls of the internal project). */
  projectId?: string;
  accessToken?: string | null;
  refreshToken?: string | null;
  /** The access token is an anonymous user's: the server refuses it without this. */
  allowAnonymous?: boolean;
}

/** The credentials of an app, resolved per request (an admin access token may be a getter). */
export interface Credentials {
  projectId: string;
  branchId?: string;
  publishableClientKey?: string;
  secretServerKey?: string;
  superSecretAdminKey?: string;
  adminAccessToken?: string | (() => string | null | Promise<string | null>);
}

export interface TransportOptions {
  baseUrl: string;
  /** A fetch to send requests with (default: the global one). */
  fetch?: typeof fetch;
  /**
   * Base of the network-retry backoff, in ms (default 1000, as the spec says). Lower it only in
   * tests.
   */
  retryBaseDelayMs?: number;
  /** Send `x-latch-override-error-status: true` (see ClientAppOptions.overrideErrorStatus). */
  overrideErrorStatus?: boolean;
  /** The longest Retry-After the transport waits out before repeating a call (see ClientAppOptions). */
  maxRetryAfterMs?: number;
}

/**
 * Retry-After waits up to this are sat out and the call repeated; a longer one (a sign-in locked
 * for the rest of its window) reaches the caller at once as RATE_LIMITED, whose details say how long
 * to wait, instead of a form that hangs for minutes.
 */
export const DEFAULT_MAX_RETRY_AFTER_MS = 10_000;

function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** 1000 ms × 2^attempt × random(0.5–1.5): spread so that clients do not retry in step. */
export function retryDelayMs(attempt: number, baseMs = 1000): number {
  return baseMs * 2 ** attempt * (0.5 + Math.random());
}

/** Retry-After as seconds (`120`) or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function isOffline(): boolean {
  return typeof navigator !== 'undefined' && (navigator as { onLine?: boolean }).onLine === false;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** The procedure path of a tRPC URL: `…/api/trpc/users.getMe?input=…` → `users.getMe`. */
function procedureOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}

/**
 * A fetch implementing the client behaviour of spec section 7 (see the module comment). Errors
 * it throws reach the caller unchanged (the SDK unwraps tRPC's wrapper).
 */
export function createLatchFetch(options: TransportOptions): typeof fetch {
  const baseFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const baseDelay = options.retryBaseDelayMs ?? 1000;
  const maxRetryAfter = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;

  return async function latchFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init.method ?? 'GET').toUpperCase();
    const procedure = procedureOf(url);
    const idempotent = method === 'GET' || procedure.split(',').every(isIdempotentMutation);

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await baseFetch(url, init);
      } catch (error) {
        if (isAbort(error) || init.signal?.aborted) throw error;
        // Offline: say so at once; retrying cannot help until the device is back online.
        if (isOffline()) throw new LatchNetworkError(OFFLINE_MESSAGE, true, { cause: error });
        if (idempotent && attempt < MAX_RETRIES) {
          await sleep(retryDelayMs(attempt, baseDelay), init.signal);
          continue;
        }
        throw new LatchNetworkError(
          `Could not reach the Latch server at ${new URL(url).origin} (${procedure}: ${describeCause(error)})` +
            (idempotent ? ` after ${attempt + 1} attempts` : '') +
            '. Check that the server is running and that baseUrl points to it.',
          false,
          { cause: error },
        );
      }
      const code = response.headers.get('x-latch-known-error');
      // With x-latch-override-error-status, an error comes as a 200 that names its real status.
      const status = Number(response.headers.get('x-latch-actual-status')) || response.status;
      if (attempt < MAX_RETRIES) {
        // Both mean the request was not processed: safe to repeat even when not idempotent.
        const retryAfter = status === 429 ? parseRetryAfterMs(response.headers.get('retry-after')) : null;
        if (retryAfter !== null && retryAfter <= maxRetryAfter) {
          await response.body?.cancel();
          await sleep(retryAfter, init.signal);
          continue;
        }
        if (status === 508 && code === 'INFINITE_LOOP_DETECTED') {
          await response.body?.cancel();
          await sleep(retryDelayMs(attempt, baseDelay), init.signal);
          continue;
        }
      }
      return checkResponse(response, code, procedure);
    }
  };
}

/**
 * Error responses must be Latch's JSON, and the known-error header must name the body's code (a
 * batch's header lists one code per call, empty for a success). The body is read here, so a fresh
 * Response with the same text is handed on.
 */
async function checkResponse(response: Response, headerCode: string | null, procedure: string): Promise<Response> {
  if (response.ok && headerCode === null) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new LatchAssertionError(`The Latch server answered ${procedure} with status ${response.status} and a body that is not JSON: ${text.slice(0, 200)}`);
  }
  const items = Array.isArray(body) ? body : [body];
  const headerCodes = headerCode === null ? null : Array.isArray(body) ? headerCode.split(',') : [headerCode];
  items.forEach((item, index) => {
    const bodyCode = (item as { error?: { data?: { latch?: { code?: unknown } } } } | null)?.error?.data?.latch?.code;
    const expected = headerCodes?.[index];
    if (headerCodes !== null && (expected || undefined) !== bodyCode) {
      throw new LatchAssertionError(
        `The x-latch-known-error header (${headerCode}) does not match the error code in the body (${String(bodyCode)}) of ${procedure.split(',')[index]}.`,
      );
    }
  });
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function randomNonce(): string {
  return Math.random().toString(36).slice(2) + Date.now().toString(36);
}

/** The `x-latch-*` headers of one call. */
export async function buildHeaders(credentials: Credentials, context: CallContext): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    'x-latch-project-id': context.projectId ?? credentials.projectId,
    'x-latch-access-type': context.access,
    'x-latch-client-version': SDK_VERSION,
    // Defeats any cache between the SDK and the server (GET calls carry their input in the URL).
    'x-latch-random-nonce': randomNonce(),
  };
  if (credentials.branchId && context.projectId === undefined) headers['x-latch-branch-id'] = credentials.branchId;
  if (context.access === 'client' && credentials.publishableClientKey && context.projectId === undefined) {
    headers['x-latch-publishable-client-key'] = credentials.publishableClientKey;
  }
  if (context.access === 'server' && credentials.secretServerKey) headers['x-latch-secret-server-key'] = credentials.secretServerKey;
  if (context.access === 'admin') {
    if (credentials.superSecretAdminKey) headers['x-latch-super-secret-admin-key'] = credentials.superSecretAdminKey;
    else if (credentials.adminAccessToken) {
      const token = typeof credentials.adminAccessToken === 'function' ? await credentials.adminAccessToken() : credentials.adminAccessToken;
      if (token) headers['x-latch-admin-access-token'] = token;
    }
  }
  if (context.accessToken) headers['x-latch-access-token'] = context.accessToken;
  if (context.refreshToken) headers['x-latch-refresh-token'] = context.refreshToken;
  if (context.allowAnonymous) headers['x-latch-allow-anonymous-user'] = 'true';
  return headers;
}

type OperationType = 'query' | 'mutation';

interface PendingCall {
  type: OperationType;
  path: string;
  input: unknown;
  headers: Record<string, string>;
  resolve(data: unknown): void;
  reject(error: unknown): void;
}

/** One call's answer in tRPC's envelope: its data, or its error as the SDK's error. */
function settle(call: PendingCall, item: unknown): void {
  const envelope = item as { result?: { data?: unknown }; error?: { message?: string; data?: unknown } } | null | undefined;
  if (envelope?.result) call.resolve(envelope.result.data);
  else if (envelope?.error) call.reject(errorOfTrpcShape(envelope.error));
  else call.reject(new LatchAssertionError(`The Latch server's answer to ${call.path} has neither a result nor an error.`));
}

/**
 * The typed tRPC client of one app: `client.users.getMe.query(input, { context })` and
 * `….mutate(…)`, as tRPC's own client, with calls of the same tick and the same headers batched.
 */
export function createTransport(credentials: Credentials, options: TransportOptions): LatchTrpcClient {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/api/trpc`;
  const latchFetch = createLatchFetch(options);
  const queues = new Map<string, PendingCall[]>();
  let scheduled = false;

  async function send(calls: PendingCall[]): Promise<void> {
    const first = calls[0]!;
    const batch = calls.length > 1;
    const input = batch ? Object.fromEntries(calls.map((call, index) => [index, call.input])) : first.input;
    let target = `${url}/${calls.map((call) => call.path).join(',')}${batch ? '?batch=1' : ''}`;
    const headers = { ...first.headers, ...(options.overrideErrorStatus && { 'x-latch-override-error-status': 'true' }) };
    const init: RequestInit = { method: first.type === 'query' ? 'GET' : 'POST', headers };
    if (first.type === 'query') {
      if (input !== undefined) target += `${batch ? '&' : '?'}input=${encodeURIComponent(JSON.stringify(input))}`;
    } else {
      init.headers = { ...headers, 'content-type': 'application/json' };
      if (input !== undefined) init.body = JSON.stringify(input);
    }
    try {
      const response = await latchFetch(target, init);
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new LatchAssertionError(
          `The Latch server answered ${first.path} with status ${response.status} and a body that is not JSON: ${text.slice(0, 200)}`,
        );
      }
      calls.forEach((call, index) => settle(call, batch ? (Array.isArray(body) ? body[index] : null) : body));
    } catch (error) {
      for (const call of calls) call.reject(error);
    }
  }

  /** Sends what the tick queued: one request per group of equal headers, split at the batch limits. */
  function flush(): void {
    scheduled = false;
    const groups = [...queues.values()];
    queues.clear();
    for (const group of groups) {
      let chunk: PendingCall[] = [];
      let urlLength = 0;
      for (const call of group) {
        const length = call.type === 'query' ? call.path.length + JSON.stringify(call.input ?? null).length * 1.5 : 0;
        if (chunk.length === MAX_BATCH_SIZE || (chunk.length > 0 && urlLength + length > MAX_BATCH_URL_LENGTH)) {
          void send(chunk);
          chunk = [];
          urlLength = 0;
        }
        chunk.push(call);
        urlLength += length;
      }
      if (chunk.length > 0) void send(chunk);
    }
  }

  async function enqueue(type: OperationType, path: string, input: unknown, context: CallContext): Promise<unknown> {
    const headers = await buildHeaders(credentials, context);
    const { 'x-latch-random-nonce': _nonce, ...same } = headers;
    const key = `${type} ${JSON.stringify(same)}`;
    return new Promise((resolve, reject) => {
      queues.set(key, [...(queues.get(key) ?? []), { type, path, input, headers, resolve, reject }]);
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, 0);
      }
    });
  }

  const at = (path: readonly string[]): unknown =>
    new Proxy(() => undefined, {
      get: (_target, key) => (typeof key === 'string' && key !== 'then' ? at([...path, key]) : undefined),
      apply: (_target, _this, args: [unknown?, { context?: CallContext }?]) => {
        const method = path[path.length - 1];
        if (method !== 'query' && method !== 'mutate') throw new TypeError(`Not a procedure call: ${path.join('.')}`);
        const context = args[1]?.context ?? { access: 'client' };
        return enqueue(method === 'query' ? 'query' : 'mutation', path.slice(0, -1).join('.'), args[0], context);
      },
    });
  return at([]) as LatchTrpcClient;
}
