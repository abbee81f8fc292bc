import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ProjectFixture, useHarness } from '../server/test/harness.js';
import { ClientApp } from './client-app.js';
import { SERVER_RENDER_COOKIE_MESSAGE, requestCookieTokenStore } from './request-cookies.js';
import { type TokenPair, cookieTokenStore } from './tokens.js';

/**
 * The server-rendering cookie helper against the real server: the cookies the browser's cookie
 * store writes are read by requestCookieTokenStore on the rendering server (a real node:http
 * server here), and what it writes back (Set-Cookie) is read by the browser's store again.
 */

const h = useHarness();
let project: ProjectFixture;
let ssr: Server;
let ssrUrl: string;

/** A browser's cookie jar behind `document.cookie`, for the SDK's browser cookie store. */
const jar = new Map<string, string>();
function installDocument(): void {
  Object.defineProperty(globalThis, 'document', {
    configurable: true,
    value: {
      get cookie() {
        return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      },
      set cookie(line: string) {
        const [pair, ...attributes] = line.split(';').map((part) => part.trim());
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq);
        if (attributes.some((a) => /^max-age=0$/i.test(a))) jar.delete(name);
        else jar.set(name, pair!.slice(eq + 1));
      },
    },
  });
}

beforeAll(async () => {
  project = await h.createProject();
  // The "framework": renders a page for the browser with the session of its cookies, and may set cookies.
  ssr = createServer((req, res) => {
    const app = new ClientApp({
      projectId: project.id,
      publishableClientKey: project.publishableClientKey,
      baseUrl: h.url,
      tokenStore: requestCookieTokenStore(req, { projectId: project.id, response: res }),
    });
    app.getUser().then(
      (user) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ user_id: user?.id ?? null })),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => ssr.listen(0, '127.0.0.1', resolve));
  ssrUrl = `http://127.0.0.1:${(ssr.address() as AddressInfo).port}/dashboard`;
});
afterAll(async () => {
  ssr.closeAllConnections();
  await new Promise((resolve) => ssr.close(resolve));
});
afterEach(() => {
  jar.clear();
  Reflect.deleteProperty(globalThis, 'document');
});

async function signedIn(): Promise<{ userId: string; tokens: TokenPair }> {
  const app = new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: h.url, tokenStore: 'memory' });
  const result = await app.signUpWithPassword({ email: h.uniqueEmail('ssr'), password: 'correct-horse-1' });
  if (result.status !== 'ok') throw new Error('sign-up failed');
  return { userId: result.data.user_id, tokens: await app.getAuthTokens() };
}

/** The Cookie header a browser sends after the SDK's cookie store kept `tokens`. */
function browserCookies(tokens: TokenPair): string {
  installDocument();
  void cookieTokenStore(project.id).set(tokens);
  return document.cookie;
}

const appFor = (tokenStore: ReturnType<typeof requestCookieTokenStore>) =>
  new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: h.url, tokenStore });

describe('requestCookieTokenStore (server rendering)', () => {
  it("reads the session from the browser store's cookies in a fetch Request", async () => {
    const { userId, tokens } = await signedIn();
    const request = new Request('http://localhost:3000/page', { headers: { cookie: `theme=dark; ${browserCookies(tokens)}` } });
    const app = appFor(requestCookieTokenStore(request, { projectId: project.id }));
    expect((await app.getUser())?.id).toBe(userId);
    // No cookies: signed out, nothing to write.
    expect(await appFor(requestCookieTokenStore(new Request('http://localhost:3000/page'), { projectId: project.id })).getUser()).toBeNull();
  });

  it('a write without a response fails clearly, unless a no-op is requested', async () => {
    const { userId, tokens } = await signedIn();
    // Only the refresh token (the access cookie expired after a day): the render must refresh.
    const cookie = browserCookies({ accessToken: null, refreshToken: tokens.refreshToken });
    await expect(appFor(requestCookieTokenStore({ headers: { cookie } }, { projectId: project.id })).getUser()).rejects.toThrow(SERVER_RENDER_COOKIE_MESSAGE);
    const store = requestCookieTokenStore({ headers: { cookie } }, { projectId: project.id, noop: true });
    const app = appFor(store);
    expect((await app.getUser())?.id).toBe(userId);
    // The refreshed token stays for this request's store, and nothing else.
    const kept = await store.get();
    expect(kept?.refreshToken).toBe(tokens.refreshToken);
    expect(kept?.accessToken).toMatch(/^ey/);
  });

  it("with a response, a refreshed session is written as Set-Cookie that the browser's store reads back", async () => {
    const { userId, tokens } = await signedIn();
    const cookie = browserCookies({ accessToken: null, refreshToken: tokens.refreshToken });
    const res = await fetch(ssrUrl, { headers: { cookie } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ user_id: userId });
    const setCookies = res.headers.getSetCookie();
    expect(setCookies).toHaveLength(2);
    for (const line of setCookies) expect(line).toMatch(/; Path=\/; Max-Age=\d+; SameSite=Lax; Secure$/);
    expect(setCookies.join('\n')).not.toMatch(/HttpOnly/i);
    // The browser stores them; its cookie store now has the fresh access token with the same refresh token.
    jar.clear();
    for (const line of setCookies) document.cookie = line;
    const seen = await cookieTokenStore(project.id).get();
    expect(seen?.refreshToken).toBe(tokens.refreshToken);
    expect(seen?.accessToken).toMatch(/^ey/);

    // A sign-out in a route handler that returns a fetch Response: both cookies are deleted.
    const headers = new Headers();
    const handlerApp = appFor(
      requestCookieTokenStore(new Request('http://localhost:3000/sign-out', { headers: { cookie: document.cookie } }), {
        projectId: project.id,
        response: headers,
      }),
    );
    await handlerApp.signOut();
    const deletions = headers.getSetCookie();
    expect(deletions.map((line) => line.split('=')[0])).toEqual([`latch-refresh-${project.id}`, `latch-access-${project.id}`]);
    // A plain http: request URL: not Secure (the browser would drop a Secure cookie there).
    for (const line of deletions) expect(line).toMatch(/=; Path=\/; Max-Age=0; SameSite=Lax$/);
  });

  it('needs a project id', () => {
    const saved = process.env.LATCH_PROJECT_ID;
    delete process.env.LATCH_PROJECT_ID;
    try {
      expect(() => requestCookieTokenStore('a=b')).toThrow(/No project id/);
    } finally {
      if (saved !== undefined) process.env.LATCH_PROJECT_ID = saved;
    }
  });
});
