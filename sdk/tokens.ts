/**
 * Tokens and the session (spec section 4, "Session"): where the access and refresh tokens live
 * (token stores), and when the access token is refreshed. Rules:
 * - refresh when the access token expires within 20 s (never ask for more than 60 s); a token
 *   without an expiry counts as valid far into the future;
 * - concurrent refreshes of one refresh token share one request;
 * - a failed refresh (the refresh token is dead) clears both tokens: the session starts logged out;
 * - a response saying the access token is invalid marks it expired (the next call refreshes).
 */
import { isKnownErrorInGroup } from './errors.js';

/** The two tokens of a session; either may be missing. */
export interface TokenPair {
  accessToken: string | null;
  refreshToken: string | null;
}

/**
 * Where an app keeps its tokens. `get` and `set` may be async (a database, an encrypted cookie of
 * your framework, …). `set(null)` signs out.
 *
 * @example
 * const store: TokenStore = {
 *   get: () => JSON.parse(localStorage.getItem('latch') ?? 'null'),
 *   set: (tokens) => localStorage.setItem('latch', JSON.stringify(tokens)),
 * };
 */
export interface TokenStore {
  get(): TokenPair | null | Promise<TokenPair | null>;
  set(tokens: TokenPair | null): void | Promise<void>;
  /**
   * Optional: tells `onChange` when the tokens change from outside this app object (another tab
   * signing in or out, the host's server rewriting a cookie). Returns a function that stops it.
   */
  subscribe?(onChange: () => void): () => void;
}

/**
 * How an app is told to keep tokens:
 * - `'memory'`: in this app object only (scripts, tests, one process per user);
 * - `'cookie'`: browser cookies `latch-refresh-<projectId>` (1 year) and `latch-access-<projectId>`
 *   (1 day), shared by tabs and readable by your server;
 * - a {@link TokenStore}: your own storage;
 * - a {@link TokenPair}: fixed tokens, e.g. from a request's headers on your server;
 * - `null`: no session at all (server and admin apps that only act on other users).
 */
export type TokenStoreInit = 'memory' | 'cookie' | TokenStore | Partial<TokenPair> | null;

/** The spec's margin: refresh when the access token expires within 20 s… */
export const ACCESS_TOKEN_REFRESH_MARGIN_MS = 20_000;
/** …and never ask for a token valid more than 60 s ahead (tokens may be short-lived). */
export const MAX_ACCESS_TOKEN_REFRESH_MARGIN_MS = 60_000;
export const REFRESH_COOKIE_MAX_AGE_SECONDS = 31_536_000;
/** How often the cookie store looks for changes made by other tabs or the server (spec section 9). */
export const COOKIE_POLL_INTERVAL_MS = 100;
export const ACCESS_COOKIE_MAX_AGE_SECONDS = 86_400;

export const NO_TOKEN_STORE_MESSAGE = 'Cannot call this function on a Latch app without a persistent token store';
export const COOKIE_ON_SERVER_MESSAGE = 'Cannot use cookie token store on the server';

/** The claims of a JWT, unverified (the server verifies; the SDK only reads `exp`, `iat` and `is_anonymous`). */
export function decodeJwtClaims(token: string): Record<string, unknown> | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const base64 = payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const json = decodeURIComponent(Array.from(atob(base64), (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''));
    const claims: unknown = JSON.parse(json);
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Whether the access token should be refreshed now. The margin is 20 s (at most 60 s), but never
 * more than half the token's lifetime, so a deployment with very short tokens does not refresh
 * on every call. No `exp` means far in the future.
 */
export function accessTokenNeedsRefresh(token: string, now = Date.now(), marginMs = ACCESS_TOKEN_REFRESH_MARGIN_MS): boolean {
  const claims = decodeJwtClaims(token);
  const exp = typeof claims?.exp === 'number' ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
  const iat = typeof claims?.iat === 'number' ? claims.iat * 1000 : Number.NEGATIVE_INFINITY;
  const margin = Math.min(marginMs, MAX_ACCESS_TOKEN_REFRESH_MARGIN_MS, (exp - iat) / 2);
  return exp - now <= margin;
}

/** Whether the access token is an anonymous user's (its requests must allow anonymous users). */
export function isAnonymousToken(token: string | null): boolean {
  return token !== null && decodeJwtClaims(token)?.is_anonymous === true;
}

/**
 * Tokens in this object only.
 *
 * @example
 * const app = new ClientApp({ projectId, publishableClientKey, tokenStore: memoryTokenStore() });
 */
export function memoryTokenStore(initial: Partial<TokenPair> = {}): TokenStore {
  let tokens: TokenPair | null =
    initial.accessToken || initial.refreshToken ? { accessToken: initial.accessToken ?? null, refreshToken: initial.refreshToken ?? null } : null;
  return {
    get: () => tokens,
    set: (next) => {
      tokens = next;
    },
  };
}

/** The cookies of a `Cookie` header (or `document.cookie`), URI-decoded. */
export function parseCookies(header: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    try {
      cookies.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // A cookie of someone else's that is not URI-encoded: not ours.
    }
  }
  return cookies;
}

function writeCookie(name: string, value: string | null, maxAgeSeconds: number): void {
  const secure = typeof location !== 'undefined' && location.protocol === 'https:' ? '; secure' : '';
  document.cookie =
    value === null
      ? `${name}=; path=/; max-age=0; samesite=lax${secure}`
      : `${name}=${encodeURIComponent(value)}; path=/; max-age=${maxAgeSeconds}; samesite=lax${secure}`;
}

/** The names of a project's session cookies: the refresh token's, then the access token's. */
export function sessionCookieNames(projectId: string): [string, string] {
  return [`latch-refresh-${projectId}`, `latch-access-${projectId}`];
}

/** The session in a project's cookies (as cookieTokenStore writes them), or null. */
export function tokensOfCookies(cookies: Map<string, string>, projectId: string): TokenPair | null {
  const [refreshName, accessName] = sessionCookieNames(projectId);
  const refreshToken = cookies.get(refreshName) || null;
  let accessToken: string | null = null;
  try {
    const pair: unknown = JSON.parse(cookies.get(accessName) ?? 'null');
    if (Array.isArray(pair) && pair[0] === refreshToken && typeof pair[1] === 'string') accessToken = pair[1];
  } catch {
    accessToken = null;
  }
  return refreshToken || accessToken ? { accessToken, refreshToken } : null;
}

/** The cookies that store `tokens` (null: sign-out), as [name, value or null to delete, max-age]. */
export function sessionCookies(projectId: string, tokens: TokenPair | null): [string, string | null, number][] {
  const [refreshName, accessName] = sessionCookieNames(projectId);
  return [
    [refreshName, tokens?.refreshToken ?? null, REFRESH_COOKIE_MAX_AGE_SECONDS],
    [accessName, tokens?.accessToken ? JSON.stringify([tokens.refreshToken, tokens.accessToken]) : null, ACCESS_COOKIE_MAX_AGE_SECONDS],
  ];
}

/**
 * Browser cookies, named after the project so several projects can share a domain: the refresh
 * token in `latch-refresh-<projectId>` for 1 year, the access token in `latch-access-<projectId>`
 * for 1 day, stored together with the refresh token it belongs to (a JSON pair), so an access
 * token left over from another session is never sent with a new refresh token. Throws
 * 'Cannot use cookie token store on the server' when used without `document`.
 *
 * @example
 * const app = new ClientApp({ projectId, publishableClientKey, tokenStore: 'cookie' });
 */
export function cookieTokenStore(projectId: string): TokenStore {
  const [refreshName, accessName] = sessionCookieNames(projectId);
  const readCookies = () => parseCookies(document.cookie);
  const requireBrowser = () => {
    if (typeof document === 'undefined') throw new Error(COOKIE_ON_SERVER_MESSAGE);
  };
  // The refresh cookie as this store last saw or wrote it: a different value is someone else's change.
  let lastSeen: string | null | undefined;
  const listeners = new Set<() => void>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const poll = () => {
    const current = readCookies().get(refreshName) || null;
    if (lastSeen === undefined) lastSeen = current;
    if (current === lastSeen) return;
    lastSeen = current;
    for (const listener of [...listeners]) listener();
  };
  return {
    subscribe(onChange) {
      if (typeof document === 'undefined') return () => {};
      listeners.add(onChange);
      if (!timer) {
        poll();
        timer = setInterval(poll, COOKIE_POLL_INTERVAL_MS);
        // Never keep a Node process (tests, SSR) alive just to watch cookies.
        (timer as { unref?: () => void }).unref?.();
      }
      return () => {
        listeners.delete(onChange);
        if (listeners.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    get() {
      requireBrowser();
      return tokensOfCookies(readCookies(), projectId);
    },
    set(tokens) {
      requireBrowser();
      writeCookie(refreshName, tokens?.refreshToken ?? null, REFRESH_COOKIE_MAX_AGE_SECONDS);
      writeCookie(accessName, tokens?.accessToken ? JSON.stringify([tokens.refreshToken, tokens.accessToken]) : null, ACCESS_COOKIE_MAX_AGE_SECONDS);
      // Our own write is not news to our own listeners (the app already knows it signed in or out).
      lastSeen = tokens?.refreshToken ?? null;
    },
  };
}

/** For apps without a session: any use is the spec's misuse error. */
export const noTokenStore: TokenStore = {
  get() {
    throw new Error(NO_TOKEN_STORE_MESSAGE);
  },
  set() {
    throw new Error(NO_TOKEN_STORE_MESSAGE);
  },
};

/** Resolves the `tokenStore` option of an app. */
export function resolveTokenStore(init: TokenStoreInit, projectId: string): TokenStore {
  if (init === null) return noTokenStore;
  if (init === 'memory') return memoryTokenStore();
  if (init === 'cookie') return cookieTokenStore(projectId);
  if (typeof (init as TokenStore).get === 'function' && typeof (init as TokenStore).set === 'function') return init as TokenStore;
  return memoryTokenStore(init as Partial<TokenPair>);
}

/**
 * The session of one token store: hands out a likely-valid access token, refreshing it when
 * needed. `refresh` exchanges a refresh token for an access token (the `sessions.refresh` call);
 * `onSignedOut` is told when the session ends without the app asking (a failed refresh).
 */
export class TokenSession {
  readonly #store: TokenStore;
  readonly #refresh: (refreshToken: string) => Promise<string>;
  readonly #onSessionChange: () => void;
  /** One in-flight refresh per refresh token: concurrent callers share it. */
  readonly #refreshing = new Map<string, Promise<string | null>>();

  constructor(store: TokenStore, refresh: (refreshToken: string) => Promise<string>, onSessionChange: () => void = () => {}) {
    this.#store = store;
    this.#refresh = refresh;
    this.#onSessionChange = onSessionChange;
  }

  /** The stored tokens, as they are. Throws the spec's message when the app has no token store. */
  async peek(): Promise<TokenPair> {
    const tokens = await this.#store.get();
    return { accessToken: tokens?.accessToken ?? null, refreshToken: tokens?.refreshToken ?? null };
  }

  /**
   * Tokens with an access token that is valid for at least the margin, refreshed if needed; both
   * null when signed out. A dead refresh token signs out; a network failure is thrown.
   */
  async getTokens(): Promise<TokenPair> {
    const tokens = await this.peek();
    if (tokens.accessToken && !accessTokenNeedsRefresh(tokens.accessToken)) return tokens;
    if (!tokens.refreshToken) {
      // Without a refresh token, an access token is used until it has actually expired.
      const usable = tokens.accessToken !== null && !accessTokenNeedsRefresh(tokens.accessToken, Date.now(), 0);
      return { accessToken: usable ? tokens.accessToken : null, refreshToken: null };
    }
    const refreshToken = tokens.refreshToken;
    let pending = this.#refreshing.get(refreshToken);
    if (!pending) {
      pending = this.#doRefresh(refreshToken).finally(() => this.#refreshing.delete(refreshToken));
      this.#refreshing.set(refreshToken, pending);
    }
    const accessToken = await pending;
    return accessToken === null ? { accessToken: null, refreshToken: null } : { accessToken, refreshToken };
  }

  async #doRefresh(refreshToken: string): Promise<string | null> {
    let accessToken: string;
    try {
      accessToken = await this.#refresh(refreshToken);
    } catch (error) {
      // "RefreshTokenError: the refresh yields no token", and the session is over.
      if (!isKnownErrorInGroup(error, 'RefreshTokenError')) throw error;
      if ((await this.peek()).refreshToken === refreshToken) await this.clear();
      return null;
    }
    // Unless someone signed in anew meanwhile, keep the fresh token with its refresh token.
    if ((await this.peek()).refreshToken === refreshToken) await this.#store.set({ accessToken, refreshToken });
    return accessToken;
  }

  /** The server said this access token is invalid: forget it so the next call refreshes. */
  async markAccessTokenExpired(accessToken: string): Promise<void> {
    const tokens = await this.peek();
    if (tokens.accessToken === accessToken) await this.#store.set({ accessToken: null, refreshToken: tokens.refreshToken });
  }

  /** Starts a new session (sign-in, sign-up). */
  async setTokens(tokens: TokenPair): Promise<void> {
    await this.#store.set(tokens);
    this.#onSessionChange();
  }

  /** Ends the session: both tokens are cleared (sign-out, deleted account, failed refresh). */
  async clear(): Promise<void> {
    await this.#store.set(null);
    this.#onSessionChange();
  }
}
