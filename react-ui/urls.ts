/**
 * The URL rules of the handler (spec section 2), as pure functions with no DOM: the handler path,
 * the pages it serves, the after-auth defaults and their overrides, `after_auth_return_to`, and the
 * one rule every redirect obeys (relative URLs only).
 */

/** Default handler base path (spec section 9). */
export const DEFAULT_HANDLER_PATH = '/handler';

/** The spec's message for a handler path that does not start with "/". */
export const HANDLER_PATH_MESSAGE = 'Handler path must start with /';

/** The spec's message for a redirect to anything but a relative URL. */
export const UNTRUSTED_REDIRECT_MESSAGE = 'Redirect URL is not trusted; should be relative.';

/** The query parameter that carries the return location through sign-in and sign-up. */
export const RETURN_TO_PARAM = 'after_auth_return_to';

/** How long the pages wait before a redirect that follows a message (spec section 9, "Redirect wait"). */
export const REDIRECT_WAIT_MS = 2000;

/**
 * The session-storage key of the multi-factor attempt code. The spec asks for a key ending in
 * `mfa_attempt_code`; the project id keeps two projects on one origin apart.
 *
 * @example
 * sessionStorage.getItem(mfaAttemptCodeKey(app.projectId)) // set by the sign-in form
 */
export function mfaAttemptCodeKey(projectId: string): string {
  return `latch:${projectId}:mfa_attempt_code`;
}

/** The handler's sub-paths (spec section 2), in the order the spec lists them. */
export const HANDLER_ROUTES = [
  'sign-in',
  'sign-up',
  'sign-out',
  'email-verification',
  'password-reset',
  'forgot-password',
  'oauth-callback',
  'magic-link-callback',
  'account-settings',
  'error',
  'team-invitation',
  'mfa',
  'cli-auth-confirm',
  'impersonate',
] as const;

export type HandlerRoute = (typeof HANDLER_ROUTES)[number];

/** Every page the UI kit links to or redirects to; each can be overridden. */
export interface LatchUrls {
  handler: string;
  home: string;
  signIn: string;
  signUp: string;
  signOut: string;
  afterSignIn: string;
  afterSignUp: string;
  afterSignOut: string;
  emailVerification: string;
  passwordReset: string;
  forgotPassword: string;
  oauthCallback: string;
  magicLinkCallback: string;
  accountSettings: string;
  error: string;
  teamInvitation: string;
  mfa: string;
  cliAuthConfirm: string;
  impersonate: string;
}

/**
 * Checks a handler base path and drops a trailing slash (`/auth/` → `/auth`).
 *
 * @throws Error 'Handler path must start with /' when it does not.
 */
export function normalizeHandlerPath(path: string = DEFAULT_HANDLER_PATH): string {
  if (!path.startsWith('/')) throw new Error(HANDLER_PATH_MESSAGE);
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '' : trimmed;
}

const ROUTE_KEYS: Record<HandlerRoute, keyof LatchUrls> = {
  'sign-in': 'signIn',
  'sign-up': 'signUp',
  'sign-out': 'signOut',
  'email-verification': 'emailVerification',
  'password-reset': 'passwordReset',
  'forgot-password': 'forgotPassword',
  'oauth-callback': 'oauthCallback',
  'magic-link-callback': 'magicLinkCallback',
  'account-settings': 'accountSettings',
  error: 'error',
  'team-invitation': 'teamInvitation',
  mfa: 'mfa',
  'cli-auth-confirm': 'cliAuthConfirm',
  impersonate: 'impersonate',
};

/**
 * The app's pages: the handler routes under `handlerPath`, home `/`, after-sign-in → home,
 * after-sign-up → after-sign-in, after-sign-out → home (spec section 2), then `overrides`.
 * The defaults chain on the overridden values: overriding `home` moves after-sign-in too.
 *
 * @throws Error 'Redirect URL is not trusted; should be relative.' when an override is not relative.
 *
 * @example
 * resolveUrls({ handlerPath: '/auth', urls: { home: '/app' } }).afterSignUp // '/app'
 */
export function resolveUrls(options: { handlerPath?: string; urls?: Partial<LatchUrls> } = {}): LatchUrls {
  const handler = normalizeHandlerPath(options.handlerPath ?? DEFAULT_HANDLER_PATH);
  const given = options.urls ?? {};
  const routes = {} as Record<keyof LatchUrls, string>;
  for (const route of HANDLER_ROUTES) routes[ROUTE_KEYS[route]] = `${handler}/${route}`;
  const home = given.home ?? '/';
  const afterSignIn = given.afterSignIn ?? home;
  const afterSignUp = given.afterSignUp ?? afterSignIn;
  const afterSignOut = given.afterSignOut ?? home;
  const defined = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  const urls: LatchUrls = { ...routes, ...defined, handler: handler || '/', home, afterSignIn, afterSignUp, afterSignOut };
  // Fail when the app starts, not at the first redirect: every page must be a relative URL.
  for (const url of Object.values(urls)) assertRelativeUrl(url);
  return urls;
}

/**
 * `path` without its leading and trailing slashes. Not `/^\/+|\/+$/g`: an unanchored `\/+$` retries
 * from every slash, quadratic on a link like `/handler/x//////…/a` (10 KB froze the page 0.3 s).
 */
function trimSlashes(path: string): string {
  let start = 0;
  let end = path.length;
  while (start < end && path[start] === '/') start += 1;
  while (end > start && path[end - 1] === '/') end -= 1;
  return path.slice(start, end);
}

/**
 * Which handler route a path names, or null when it is outside the handler or names none.
 * Matching is exact per segment (`/handler/sign-in/` and `/handler/sign-in` match, `/handler/sign-inx` does not).
 *
 * @example
 * parseHandlerRoute('/handler/sign-in') // 'sign-in'
 */
export function parseHandlerRoute(pathname: string, handlerPath: string = DEFAULT_HANDLER_PATH): HandlerRoute | null {
  const base = normalizeHandlerPath(handlerPath);
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return null;
  const rest = trimSlashes(pathname.slice(base.length));
  return (HANDLER_ROUTES as readonly string[]).includes(rest) ? (rest as HandlerRoute) : null;
}

// A base no real page has: a URL that resolves to another origin against it was not relative.
const PROBE_ORIGIN = 'http://relative-url-probe.invalid';

/**
 * Whether `url` is relative: it stays on the current origin whatever that origin is. Rejects
 * absolute URLs, scheme-relative `//evil.example`, backslash tricks `/\evil.example` and URLs
 * that the URL parser turns into one of those (tabs and newlines are stripped by it).
 *
 * @example
 * isRelativeUrl('/dashboard') // true
 * isRelativeUrl('//evil.example') // false
 */
export function isRelativeUrl(url: string): boolean {
  if (typeof url !== 'string' || url.length === 0) return false;
  // A scheme (javascript:, data:, https:) makes it absolute, whatever the parser says about it.
  if (/^[\s\u0000-\u001f]*[a-z][a-z0-9+.-]*:/i.test(url)) return false;
  if (/^[\s\u0000-\u001f]*[/\\][\s\u0000-\u001f]*[/\\]/.test(url)) return false;
  try {
    return new URL(url, `${PROBE_ORIGIN}/a/b`).origin === PROBE_ORIGIN;
  } catch {
    return false;
  }
}

/**
 * Returns `url` when it is relative.
 *
 * @throws Error 'Redirect URL is not trusted; should be relative.' otherwise.
 */
export function assertRelativeUrl(url: string): string {
  if (!isRelativeUrl(url)) throw new Error(UNTRUSTED_REDIRECT_MESSAGE);
  return url;
}

/** `url` with `after_auth_return_to=returnTo` added (only a relative `returnTo` is carried). */
export function withReturnTo(url: string, returnTo: string | null | undefined): string {
  if (!returnTo || !isRelativeUrl(returnTo)) return url;
  const hashAt = url.indexOf('#');
  const [path, hash] = hashAt === -1 ? [url, ''] : [url.slice(0, hashAt), url.slice(hashAt)];
  const separator = path.includes('?') ? '&' : '?';
  return `${path}${separator}${RETURN_TO_PARAM}=${encodeURIComponent(returnTo)}${hash}`;
}

/** The `after_auth_return_to` of a query string when it is relative, else null (an absolute one is dropped, not followed). */
export function readReturnTo(search: string): string | null {
  const value = new URLSearchParams(search).get(RETURN_TO_PARAM);
  return value && isRelativeUrl(value) ? value : null;
}

/**
 * Where to go after sign-in or sign-up: the page's `after_auth_return_to` when present (and
 * relative), else after-sign-in or after-sign-up.
 */
export function afterAuthUrl(kind: 'sign-in' | 'sign-up', urls: Pick<LatchUrls, 'afterSignIn' | 'afterSignUp'>, search: string): string {
  return readReturnTo(search) ?? (kind === 'sign-up' ? urls.afterSignUp : urls.afterSignIn);
}

/** A page's path, query and hash: what `after_auth_return_to` carries back. */
export function currentRelativeUrl(location: { pathname: string; search: string; hash: string }): string {
  return `${location.pathname}${location.search}${location.hash}`;
}
