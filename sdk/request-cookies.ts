/**
 * The session cookies on a server that renders pages (spec sections 4 and 8: "setting cookies in
 * server-rendered components fails unless a no-op is requested"). The browser keeps the session
 * in the cookies of `cookieTokenStore` (`latch-refresh-<projectId>`, `latch-access-<projectId>`);
 * a server rendering a page for that browser reads them from the request. Writing them back needs
 * a response that can still take headers: a page render usually has none, so a write (a refreshed
 * access token, a sign-out) fails with a clear error unless the caller said where to write
 * (`response`) or that writes may be dropped (`noop`). Server-only: no browser bundle imports it.
 */
import { envVar } from './core.js';
import { type TokenPair, type TokenStore, parseCookies, sessionCookies, tokensOfCookies } from './tokens.js';

export const SERVER_RENDER_COOKIE_MESSAGE =
  'Cannot set the session cookies while server-rendering: requestCookieTokenStore has no response to write them to. ' +
  'Pass { response } where cookies can be set (a route handler, a server action, middleware), ' +
  'or { noop: true } to keep new tokens for this request only.';

/** The request whose cookies hold the session: a fetch `Request`, a Node `IncomingMessage`, its headers, or a `Cookie` header. */
export type CookieSource = string | Headers | { headers: Headers | Record<string, string | string[] | undefined>; url?: string };

/** Where new cookies go: a fetch `Headers` (of the response you will return) or a Node `ServerResponse`. */
export type CookieSink =
  Headers | { appendHeader(name: string, value: string): unknown } | { getHeader(name: string): unknown; setHeader(name: string, value: string[]): unknown };

export interface RequestCookieOptions {
  /** The project whose cookies to read. Default: `LATCH_PROJECT_ID`. */
  projectId?: string;
  /** Where to write `Set-Cookie` headers when the tokens change. */
  response?: CookieSink;
  /** Drop writes instead of failing: new tokens live in this store (this request) only. */
  noop?: boolean;
  /** Mark written cookies `Secure`. Default: unless the request's URL is plain `http:`. */
  secure?: boolean;
}

function cookieHeader(source: CookieSource): string {
  if (typeof source === 'string') return source;
  const headers = 'headers' in source ? source.headers : source;
  const value =
    typeof (headers as Headers).get === 'function' ? (headers as Headers).get('cookie') : (headers as Record<string, string | string[] | undefined>).cookie;
  return Array.isArray(value) ? value.join('; ') : (value ?? '');
}

function appendSetCookie(sink: CookieSink, value: string): void {
  if ('append' in sink && typeof sink.append === 'function') sink.append('set-cookie', value);
  else if ('appendHeader' in sink && typeof sink.appendHeader === 'function') sink.appendHeader('set-cookie', value);
  else {
    const node = sink as { getHeader(name: string): unknown; setHeader(name: string, value: string[]): unknown };
    const existing = node.getHeader('set-cookie');
    node.setHeader('set-cookie', [...(Array.isArray(existing) ? existing : existing ? [String(existing)] : []), value]);
  }
}

/**
 * A token store over the session cookies of one incoming request, for server rendering. Reads
 * the tokens the browser's `'cookie'` store keeps; when the tokens change (an access token
 * refreshed during the render, a sign-out), writes `Set-Cookie` headers to `response`, or, with
 * `noop: true`, keeps them for this store only; with neither it throws
 * {@link SERVER_RENDER_COOKIE_MESSAGE}. Make one per request.
 *
 * @example
 * // A server-rendered page: read the user, never write cookies.
 * const app = new ClientApp({ tokenStore: requestCookieTokenStore(request, { noop: true }) });
 * const user = await app.getUser();
 *
 * // A route handler that can set cookies on its response.
 * const headers = new Headers();
 * const app = new ClientApp({ tokenStore: requestCookieTokenStore(request, { response: headers }) });
 * return new Response(JSON.stringify(await app.getUser()), { headers });
 */
export function requestCookieTokenStore(request: CookieSource, options: RequestCookieOptions = {}): TokenStore {
  const projectId = options.projectId ?? envVar('LATCH_PROJECT_ID');
  if (!projectId) throw new Error('No project id: pass projectId to requestCookieTokenStore, or set the LATCH_PROJECT_ID environment variable.');
  let tokens: TokenPair | null = tokensOfCookies(parseCookies(cookieHeader(request)), projectId);
  const url = typeof request === 'object' && 'url' in request && typeof request.url === 'string' ? request.url : '';
  const secure = options.secure ?? !url.startsWith('http:');
  return {
    get: () => tokens,
    set(next) {
      if (!options.response && !options.noop) throw new Error(SERVER_RENDER_COOKIE_MESSAGE);
      tokens = next;
      if (!options.response) return;
      // Not HttpOnly: the browser's cookie store reads and refreshes the same cookies.
      for (const [name, value, maxAge] of sessionCookies(projectId, next)) {
        appendSetCookie(
          options.response,
          `${name}=${value === null ? '' : encodeURIComponent(value)}; Path=/; Max-Age=${value === null ? 0 : maxAge}; SameSite=Lax${secure ? '; Secure' : ''}`,
        );
      }
    },
  };
}
