/**
 * The OAuth callback page's half of the flow (sdk/features/oauth.ts), loaded on first use: the
 * state check against this browser's outer-state cookie, the address-bar clean-up, the code
 * exchange at `/auth/oauth/token` and the error a failed flow's redirect carries. Only the
 * callback page runs it, so every other page's bundle goes without it.
 */
import type { knownErrorFromBody as KnownErrorFromBody, knownErrorsByCode as KnownErrorsByCode } from '../../contract/errors/known-errors.js';
import type { OAuthCallbackOptions, OAuthCallbackResult } from './oauth.js';

/**
 * What this chunk needs of the SDK's main code, passed in rather than imported: an import would
 * make the bundler split the main code into a shared chunk, a second file for every page to load.
 */
export interface CallbackShared {
  cookiePrefix: string;
  knownErrorFromBody: typeof KnownErrorFromBody;
  knownErrorsByCode: typeof KnownErrorsByCode;
  accessDenied: () => Error;
  assertionError: (message: string) => Error;
}

interface OuterState {
  v: string;
  r: string;
  t: 'authenticate' | 'link';
}

/** What the callback needs of the app (its protected parts, passed in). */
export interface CallbackApp {
  shared: CallbackShared;
  beforeExchange(): Promise<unknown>;
  exchange(form: Record<string, string>): Promise<unknown>;
  store(tokens: { accessToken: string; refreshToken: string }): Promise<void>;
}

function hasCookies(): boolean {
  return typeof document !== 'undefined' && typeof document.cookie === 'string';
}

/** `url` without its `code` and `state` parameters. */
function withoutCodeAndState(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('code');
  parsed.searchParams.delete('state');
  return parsed.href;
}

/** Reads and deletes the state's cookie: a state is consumed once. */
function takeOuterState(state: string, prefix: string): OuterState | null {
  if (!hasCookies()) return null;
  const name = `${prefix}${state}`;
  const entry = document.cookie.split('; ').find((part) => part.startsWith(`${name}=`));
  document.cookie = `${name}=; path=/; max-age=0; samesite=lax`;
  if (!entry) return null;
  try {
    const value = JSON.parse(decodeURIComponent(entry.slice(name.length + 1))) as Partial<OuterState>;
    if (typeof value.v !== 'string' || typeof value.r !== 'string') return null;
    return { v: value.v, r: value.r, t: value.t === 'link' ? 'link' : 'authenticate' };
  } catch {
    return null;
  }
}

function jwtSubject(token: string): string | null {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const sub = (JSON.parse(json) as { sub?: unknown }).sub;
    return typeof sub === 'string' ? sub : null;
  } catch {
    return null;
  }
}

/** The token endpoint's answer to the authorization_code grant (spec section 7). */
interface AuthorizationCodeResponse {
  access_token: string;
  refresh_token: string;
  token_type?: string;
  expires_in?: number;
  scope?: string;
  id_token?: string;
  is_new_user?: boolean;
  user_id?: string;
  after_callback_redirect_url?: string | null;
}

export async function completeOAuthCallback(options: OAuthCallbackOptions, app: CallbackApp): Promise<OAuthCallbackResult | null> {
  const inBrowser = typeof window !== 'undefined' && typeof window.location?.href === 'string';
  const href = options.url ?? (inBrowser ? window.location.href : null);
  if (!href) throw new Error('callOAuthCallback needs the callback URL outside a browser: pass { url, codeVerifier, redirectUri }.');
  const params = new URL(href).searchParams;
  const failure = oauthErrorOf(params, app.shared);
  if (failure) {
    if (inBrowser && options.url === undefined)
      cleanAddressBar(['errorCode', 'message', 'details', 'error', 'error_description', 'error_uri', 'code', 'state']);
    throw failure;
  }
  const code = params.get('code');
  const state = params.get('state');
  if (!code || !state) {
    console.warn('Latch OAuth callback: the URL has no code and state; nothing to do.');
    return null;
  }
  let outer: OuterState | null = null;
  if (options.codeVerifier !== undefined) {
    outer = { v: options.codeVerifier, r: options.redirectUri ?? withoutCodeAndState(href), t: options.type ?? 'authenticate' };
  } else {
    outer = takeOuterState(state, app.shared.cookiePrefix);
  }
  // The spec's order: consume the cookie, then clean the query (a reload cannot replay the code).
  if (inBrowser && options.url === undefined) cleanAddressBar(['code', 'state']);
  if (!outer) {
    console.warn(
      'Latch OAuth callback: no sign-in was started in this browser for this state (the outer-state cookie is missing): ' +
        'the page was reloaded, opened in another browser, or the flow is older than an hour. Sign in again.',
    );
    return null;
  }
  await app.beforeExchange();
  const response = (await app.exchange({
    grant_type: 'authorization_code',
    code,
    code_verifier: outer.v,
    redirect_uri: outer.r,
  })) as AuthorizationCodeResponse;
  await app.store({ accessToken: response.access_token, refreshToken: response.refresh_token });
  return {
    user_id: response.user_id ?? jwtSubject(response.access_token) ?? '',
    is_new_user: response.is_new_user === true,
    type: outer.t,
    after_callback_redirect_url: response.after_callback_redirect_url ?? null,
  };
}

/** A POST of a form to `/auth/oauth/token` with the app's headers and client credentials (see OAuthFeature.oauthTokenRequest). */
export async function tokenRequest<T>(
  form: Record<string, string>,
  app: {
    projectId: string;
    baseUrl: string;
    publishableClientKey: string | undefined;
    headers: Record<string, string>;
    fetch: typeof fetch | undefined;
    shared: CallbackShared;
  },
): Promise<T> {
  const fetcher = app.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const headers = { ...app.headers, 'content-type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams({ ...form, client_id: app.projectId });
  if (app.publishableClientKey) body.set('client_secret', app.publishableClientKey);
  const response = await fetcher(`${app.baseUrl}/api/v1/auth/oauth/token`, { method: 'POST', headers, body: body.toString() });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    throw app.shared.assertionError(
      `The Latch server answered /auth/oauth/token with status ${response.status} and a body that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  if (response.ok) return parsed as T;
  const error = parsed as { code?: unknown; error?: unknown; details?: unknown; error_description?: unknown } | null;
  if (error && typeof error.code === 'string') {
    throw app.shared.knownErrorFromBody({ code: error.code, error: String(error.error ?? ''), details: error.details });
  }
  const description = typeof error?.error_description === 'string' ? `: ${error.error_description}` : '';
  throw new Error(`The code exchange failed with status ${response.status} (${String(error?.error ?? 'no error code')}${description}).`);
}

/**
 * A failed flow's error, as Latch's error redirect puts it in the URL (`error`: the catalogue code,
 * or a plain OAuth code such as `access_denied`; `errorCode` is read too). Only the code is read: the URL is anyone's to craft, so its free text (`message`,
 * `error_description`) never becomes a message the app shows; the catalogue's own message does.
 */
function oauthErrorOf(params: URLSearchParams, { knownErrorFromBody, knownErrorsByCode, accessDenied }: CallbackShared): Error | null {
  const errorCode = params.get('errorCode') ?? params.get('error_code');
  const error = params.get('error');
  if (!errorCode && !error) return null;
  if (error === 'access_denied') return accessDenied();
  // Latch puts its catalogue code in `error` (OAuth's own field), with the message in `error_description`.
  const candidate = errorCode ?? error;
  const code = candidate && /^[A-Z0-9_]{1,64}$/.test(candidate) ? candidate : null;
  const cls = code ? knownErrorsByCode.get(code) : undefined;
  if (cls) {
    try {
      // Errors with parameters get them from their arguments, absent here: keep only a clean message.
      const known = new (cls as unknown as new () => Error)();
      if (!/undefined/.test(known.message)) return known;
    } catch {
      // a catalogue builder that needs its arguments: the generic message below
    }
    return knownErrorFromBody({ code: cls.code, error: `The sign-in failed (${cls.code}). Please try again.` });
  }
  return new Error(`The sign-in failed (${code ?? (error && /^[a-z0-9_]{1,64}$/i.test(error) ? error : 'unknown error')}). Please try again.`);
}

/** Removes query parameters from the address bar without a navigation (a reload must not replay them). */
function cleanAddressBar(names: readonly string[]): void {
  if (typeof history === 'undefined' || typeof history.replaceState !== 'function') return;
  const url = new URL(window.location.href);
  for (const name of names) url.searchParams.delete(name);
  if (url.href !== window.location.href) history.replaceState(history.state, '', url.href);
}
