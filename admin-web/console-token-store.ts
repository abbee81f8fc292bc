import type { TokenPair, TokenStore } from '../sdk/index.js';

/**
 * Where the console keeps the owner's session (issue 13 item 12): the refresh token never stays in
 * reach of the page's scripts. Right after sign-in the SDK hands it to `set`, which gives it to the
 * server (`POST /api/console/session`, server/http/console-session.ts) to keep in an HttpOnly,
 * SameSite=Strict cookie, and forgets it; the 10-minute access token is kept in memory only, and a
 * new one comes from the cookie's session whenever it is missing or about to expire (after a
 * reload, too). Nothing is written to localStorage or to a readable cookie.
 *
 * The SDK sees a store without a refresh token, so it never refreshes by itself: `get` does it.
 * Other tabs hear of sign-in and sign-out through a BroadcastChannel (a cookie they cannot read
 * cannot be watched).
 */
export function consoleTokenStore(baseUrl: string): TokenStore {
  let accessToken: string | null = null;
  let refreshing: Promise<string | null> | null = null;
  const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('latch-console-session');
  const listeners = new Set<() => void>();
  channel?.addEventListener('message', () => {
    accessToken = null;
    for (const listener of [...listeners]) listener();
  });

  const post = async (path: string, method: 'POST' | 'DELETE', body?: unknown): Promise<Response> =>
    fetch(`${baseUrl}/api/console/session${path}`, {
      method,
      credentials: 'same-origin',
      headers: { 'x-latch-console': '1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** A fresh access token from the cookie's session; null when there is none (signed out). */
  const refresh = (): Promise<string | null> =>
    (refreshing ??= (async () => {
      try {
        const res = await post('/refresh', 'POST');
        // 401: no cookie, or its session ended. Anything else is thrown: the SDK reports it.
        if (res.status === 401) return null;
        if (!res.ok) throw new Error(`The console session could not be refreshed (HTTP ${res.status}).`);
        accessToken = ((await res.json()) as { access_token: string }).access_token;
        return accessToken;
      } finally {
        refreshing = null;
      }
    })());

  return {
    async get(): Promise<TokenPair | null> {
      const token = accessToken && !expiresSoon(accessToken) ? accessToken : await refresh();
      return token ? { accessToken: token, refreshToken: null } : null;
    },
    async set(tokens: TokenPair | null): Promise<void> {
      if (tokens === null) {
        // Signed out (or the session ended): forget the cookie too.
        accessToken = null;
        await post('', 'DELETE').catch(() => undefined);
        channel?.postMessage('signed-out');
        return;
      }
      if (tokens.refreshToken) {
        // A new session: its refresh token goes into the HttpOnly cookie, not into this page.
        const res = await post('', 'POST', { refresh_token: tokens.refreshToken });
        if (!res.ok) throw new Error(`The console session could not be stored (HTTP ${res.status}).`);
        accessToken = ((await res.json()) as { access_token: string }).access_token;
        channel?.postMessage('signed-in');
        return;
      }
      // The SDK drops an access token the server refused: the next `get` fetches a new one.
      accessToken = tokens.accessToken;
    },
    subscribe(onChange: () => void): () => void {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
  };
}

/** Whether a JWT expires within 30 s (its `exp`, read without verifying: the server verifies). */
function expiresSoon(token: string): boolean {
  try {
    const payload = JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof payload.exp !== 'number' || payload.exp * 1000 - Date.now() < 30_000;
  } catch {
    return true;
  }
}
