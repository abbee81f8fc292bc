import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Harness, type ProjectFixture, startHarness } from '../server/test/harness.js';
import { ClientApp } from './client-app.js';
import { KnownErrors, LatchNetworkError } from './errors.js';
import { type TestProxy, startProxy } from './test/proxy.js';
import {
  COOKIE_POLL_INTERVAL_MS,
  type TokenPair,
  type TokenStoreInit,
  TokenSession,
  accessTokenNeedsRefresh,
  cookieTokenStore,
  decodeJwtClaims,
  isAnonymousToken,
  memoryTokenStore,
} from './tokens.js';

/** An unsigned JWT with these claims: the SDK only reads claims, the server verifies. */
function fakeJwt(claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'ES256', typ: 'JWT' })}.${encode(claims)}.signature`;
}
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Installs a browser-like `document` whose cookies live in `jar` (a max-age=0 write deletes one);
 * `writes` records every cookie string assigned. The caller removes it (Reflect.deleteProperty).
 */
function installCookieDocument(): { jar: Map<string, string>; writes: string[] } {
  const jar = new Map<string, string>();
  const writes: string[] = [];
  const fakeDocument = {
    get cookie() {
      return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    },
    set cookie(value: string) {
      writes.push(value);
      const [pair, ...attributes] = value.split(';').map((s) => s.trim());
      const [name, val] = pair!.split('=') as [string, string];
      if (attributes.includes('max-age=0')) jar.delete(name);
      else jar.set(name, val);
    },
  };
  Object.defineProperty(globalThis, 'document', { value: fakeDocument, configurable: true });
  return { jar, writes };
}

describe('access-token expiry rules (unit)', () => {
  it('refreshes within 20 s of expiry, counts a missing exp as far future, and reads non-ASCII claims', () => {
    const now = Date.now();
    const tenMinutes = fakeJwt({ iat: nowSeconds(), exp: nowSeconds() + 600 });
    expect(accessTokenNeedsRefresh(tenMinutes, now)).toBe(false);
    expect(accessTokenNeedsRefresh(tenMinutes, now + 579_000)).toBe(false);
    expect(accessTokenNeedsRefresh(tenMinutes, now + 581_000)).toBe(true);
    expect(accessTokenNeedsRefresh(fakeJwt({ sub: 'x' }), now + 10 ** 12)).toBe(false);
    // The requested margin is capped at 60 s.
    expect(accessTokenNeedsRefresh(tenMinutes, now + 500_000, 120_000)).toBe(false);
    expect(accessTokenNeedsRefresh(tenMinutes, now + 541_000, 120_000)).toBe(true);
    // Short-lived tokens: at most half their lifetime ahead.
    const fourSeconds = fakeJwt({ iat: nowSeconds(), exp: nowSeconds() + 4 });
    expect(accessTokenNeedsRefresh(fourSeconds, now)).toBe(false);
    expect(accessTokenNeedsRefresh(fourSeconds, now + 3_000)).toBe(true);
    expect(decodeJwtClaims(fakeJwt({ name: 'Zoë 🌍' }))?.name).toBe('Zoë 🌍');
    expect(decodeJwtClaims('garbage')).toBeNull();
    expect(isAnonymousToken(fakeJwt({ is_anonymous: true }))).toBe(true);
    expect(isAnonymousToken(fakeJwt({ is_anonymous: false }))).toBe(false);
  });

  it('shares one refresh among concurrent callers, clears both tokens when the refresh token is dead, keeps them on a network failure', async () => {
    const expired = fakeJwt({ iat: nowSeconds() - 700, exp: nowSeconds() - 100 });
    const store = memoryTokenStore({ accessToken: expired, refreshToken: 'rt-1' });
    let refreshes = 0;
    let changes = 0;
    let outcome: 'ok' | 'dead' | 'network' = 'ok';
    const session = new TokenSession(
      store,
      async (refreshToken) => {
        refreshes++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (outcome === 'dead') throw new KnownErrors.RefreshTokenNotFoundOrExpired();
        if (outcome === 'network') throw new LatchNetworkError('down', false);
        return fakeJwt({ iat: nowSeconds(), exp: nowSeconds() + 600, rt: refreshToken });
      },
      () => changes++,
    );

    const results = await Promise.all(Array.from({ length: 10 }, () => session.getTokens()));
    expect(refreshes).toBe(1);
    expect(new Set(results.map((r) => r.accessToken)).size).toBe(1);
    expect((await session.peek()).accessToken).toBe(results[0]?.accessToken);
    await session.getTokens();
    expect(refreshes).toBe(1); // fresh now

    await session.markAccessTokenExpired(results[0]!.accessToken!);
    outcome = 'network';
    await expect(session.getTokens()).rejects.toBeInstanceOf(LatchNetworkError);
    expect((await session.peek()).refreshToken).toBe('rt-1');

    outcome = 'dead';
    expect(await Promise.all([session.getTokens(), session.getTokens()])).toEqual([
      { accessToken: null, refreshToken: null },
      { accessToken: null, refreshToken: null },
    ]);
    expect(refreshes).toBe(3);
    expect(store.get()).toBeNull();
    expect(changes).toBe(1);
  });

  it('uses an access token without a refresh token until it has expired', async () => {
    const soon = fakeJwt({ iat: nowSeconds() - 590, exp: nowSeconds() + 10 });
    const session = new TokenSession(memoryTokenStore({ accessToken: soon }), async () => {
      throw new Error('no refresh without a refresh token');
    });
    expect(await session.getTokens()).toEqual({ accessToken: soon, refreshToken: null });
    const gone = fakeJwt({ exp: nowSeconds() - 1 });
    expect(await new TokenSession(memoryTokenStore({ accessToken: gone }), async () => '').getTokens()).toEqual({ accessToken: null, refreshToken: null });
  });

  it('cookie store: project-named cookies, 1 year and 1 day, the access token paired with its refresh token', () => {
    const { jar, writes } = installCookieDocument();
    try {
      const store = cookieTokenStore('proj-1');
      expect(store.get()).toBeNull();
      store.set({ accessToken: 'at-1', refreshToken: 'rt-1' });
      expect(writes).toEqual([
        'latch-refresh-proj-1=rt-1; path=/; max-age=31536000; samesite=lax',
        `latch-access-proj-1=${encodeURIComponent(JSON.stringify(['rt-1', 'at-1']))}; path=/; max-age=86400; samesite=lax`,
      ]);
      expect(store.get()).toEqual({ accessToken: 'at-1', refreshToken: 'rt-1' });
      // Another tab signed in as someone else: the old access token is not paired with the new refresh token.
      jar.set('latch-refresh-proj-1', 'rt-2');
      expect(store.get()).toEqual({ accessToken: null, refreshToken: 'rt-2' });
      expect(cookieTokenStore('proj-2').get()).toBeNull();
      store.set(null);
      expect(jar.size).toBe(0);
    } finally {
      Reflect.deleteProperty(globalThis, 'document');
    }
  });

  it('cookie store: tells its session of changes made by another tab (polled every 100 ms), not of its own writes', async () => {
    const { jar } = installCookieDocument();
    vi.useFakeTimers();
    try {
      const store = cookieTokenStore('proj-poll');
      let changes = 0;
      // Wired as ClientApp wires its own store: session changes and the store's outside changes.
      const session = new TokenSession(
        store,
        async () => 'unused',
        () => changes++,
      );
      store.subscribe?.(() => changes++);
      await session.setTokens({ accessToken: 'at-1', refreshToken: 'rt-1' });
      expect(changes).toBe(1); // the sign-in itself
      vi.advanceTimersByTime(COOKIE_POLL_INTERVAL_MS * 3);
      expect(changes).toBe(1); // our own write is not reported again
      jar.set('latch-refresh-proj-poll', 'rt-other-tab');
      vi.advanceTimersByTime(COOKIE_POLL_INTERVAL_MS);
      expect(changes).toBe(2);
      jar.delete('latch-refresh-proj-poll');
      vi.advanceTimersByTime(COOKIE_POLL_INTERVAL_MS);
      expect(changes).toBe(3);
      expect(await session.peek()).toEqual({ accessToken: null, refreshToken: null });
    } finally {
      vi.useRealTimers();
      Reflect.deleteProperty(globalThis, 'document');
    }
  });

  it("a ClientApp with the cookie store tells its session listeners of another tab's sign-in, with one poll timer", async () => {
    const { jar } = installCookieDocument();
    vi.useFakeTimers();
    try {
      const app = new ClientApp({ projectId: 'proj-app', publishableClientKey: 'pck_x', baseUrl: 'http://127.0.0.1:9', tokenStore: 'cookie' });
      let changes = 0;
      app.onSessionChange(() => changes++);
      vi.advanceTimersByTime(COOKIE_POLL_INTERVAL_MS * 2);
      expect(changes).toBe(0);
      jar.set('latch-refresh-proj-app', 'rt-from-another-tab');
      vi.advanceTimersByTime(COOKIE_POLL_INTERVAL_MS);
      expect(changes).toBe(1);
      expect(vi.getTimerCount()).toBe(1);
    } finally {
      vi.useRealTimers();
      Reflect.deleteProperty(globalThis, 'document');
    }
  });
});

describe('token refresh against the server (access tokens live 4 s)', () => {
  let h: Harness;
  let proxy: TestProxy;
  let project: ProjectFixture;
  beforeAll(async () => {
    h = await startHarness({ accessTokenTtlSeconds: 4 });
    proxy = await startProxy(h.url);
    project = await h.createProject();
  });
  afterAll(async () => {
    await proxy?.close();
    await h?.close();
  });
  const app = (tokenStore: TokenStoreInit = 'memory') =>
    new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: proxy.url, tokenStore });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('refreshes a token near expiry once for N concurrent calls, and survives expiry unnoticed', async () => {
    const client = app();
    await client.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    // A second app holding the same session, left alone until its access token has expired.
    const idle = app({ ...(await client.getAuthTokens()) });
    const refreshesAtStart = proxy.count('sessions.refresh');
    await client.updateUser({ display_name: 'fresh token' });
    expect(proxy.count('sessions.refresh')).toBe(refreshesAtStart);

    await sleep(2100); // now within the margin (half of the 4 s lifetime) of expiry
    const users = await Promise.all(Array.from({ length: 8 }, (_, i) => client.updateUser({ display_name: `call ${i}` })));
    expect(users).toHaveLength(8);
    expect(proxy.count('sessions.refresh')).toBe(refreshesAtStart + 1);
    const refresh = proxy.requests.filter((r) => r.procedure === 'sessions.refresh').at(-1);
    expect(refresh?.method).toBe('POST');
    expect(refresh?.headers['x-latch-refresh-token']).toBeTruthy();
    expect(refresh?.headers['x-latch-access-token']).toBeUndefined();

    await sleep(2100); // the idle app's access token has expired now
    expect((await idle.updateUser({ display_name: 'after expiry' })).display_name).toBe('after expiry');
    expect(proxy.count('sessions.refresh')).toBe(refreshesAtStart + 2);
    // No call went out without its token.
    expect(proxy.requests.some((r) => r.procedure === 'users.updateMe' && r.headers['x-latch-access-token'] === undefined)).toBe(false);
  });

  it('marks a rejected access token expired and retries once after a refresh', async () => {
    const client = app();
    await client.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    const { refreshToken } = await client.getAuthTokens();
    // A token that looks valid for 10 minutes but that the server cannot parse.
    const forged = fakeJwt({ iat: nowSeconds(), exp: nowSeconds() + 600 });
    const tokens: { value: TokenPair | null } = { value: { accessToken: forged, refreshToken } };
    const other = app({
      get: () => tokens.value,
      set: (next) => {
        tokens.value = next;
      },
    });
    const expected = (await client.getUser())?.id;
    const before = { getMe: proxy.count('users.getMe'), refresh: proxy.count('sessions.refresh') };
    expect((await other.getUser())?.id).toBe(expected);
    expect(proxy.count('users.getMe') - before.getMe).toBe(2); // rejected once, then retried
    expect(proxy.count('sessions.refresh') - before.refresh).toBe(1);
    expect(tokens.value?.accessToken).not.toBe(forged);
  });

  it('a failed refresh signs out: both tokens cleared, getUser returns null', async () => {
    const client = app();
    await client.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    let sessionChanges = 0;
    client.onSessionChange(() => sessionChanges++);
    // Sign the same session out elsewhere: its refresh token dies.
    const twin = app({ ...(await client.getAuthTokens()) });
    await twin.signOut();
    // The server rejects the still-unexpired access token of the ended session; the refresh fails.
    expect(await client.getUser()).toBeNull();
    expect(await client.getAuthTokens()).toEqual({ accessToken: null, refreshToken: null });
    expect(sessionChanges).toBe(1);
    await expect(client.updateUser({ display_name: 'x' })).rejects.toBeInstanceOf(KnownErrors.CannotGetOwnUserWithoutUser);
  });
});
