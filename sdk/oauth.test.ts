import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Harness } from '../server/test/harness.js';
import type { Zoo } from '../server/test/oauth-zoo.js';
import { startZooHarness, stopZooHarness } from '../server/test/oauth-driver.js';
import { ClientApp } from './client-app.js';
import { KnownErrors } from './errors.js';
import { codeChallengeS256 } from './features/oauth.js';
import { ServerApp } from './server-app.js';

/**
 * The OAuth feature of the SDK, outside a browser (spec sections 2, 4 and 7). First its wire: the
 * authorize URL and its PKCE, the code exchange, the handling of the error redirect, against a
 * recording `fetch` (the app's `fetch` option) that answers as the token endpoint does. Then the
 * same methods against a real Latch server and the provider zoo (server/test/oauth-zoo.ts): the
 * whole flow with the SDK's own URL and exchange, anonymous upgrade and linking, connected-account
 * tokens and the provider-account calls. The browser path (cookie, redirect, address bar) runs
 * in Chromium in react-ui/oauth.browser.test.ts.
 */

const PROJECT = '6f1d3c1e-7b4e-4a55-9a0c-2f7a1d9e8b10';
const BASE = 'http://latch.test';

/** A JWT-shaped token (unsigned: the SDK only reads its claims). */
function token(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ exp: Math.floor(Date.now() / 1000) + 3600, ...claims })}.sig`;
}

interface Recorded {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A fetch that records requests and answers with `reply` (a Latch error when it returns `{ code }`). */
function recordingFetch(reply: (request: Recorded) => { status?: number; body: unknown }) {
  const requests: Recorded[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const request: Recorded = {
      method: init.method ?? 'GET',
      url: new URL(String(input)),
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    requests.push(request);
    const answer = reply(request);
    const status = answer.status ?? 200;
    const code = (answer.body as { code?: string } | null)?.code;
    return new Response(JSON.stringify(answer.body), {
      status,
      headers: { 'content-type': 'application/json', ...(status >= 400 && code ? { 'x-latch-known-error': code } : {}) },
    });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, requests };
}

function client(options: { fetch?: typeof fetch; tokens?: { accessToken: string; refreshToken: string } | 'memory' } = {}) {
  return new ClientApp({
    projectId: PROJECT,
    publishableClientKey: 'pck_test',
    baseUrl: BASE,
    tokenStore: options.tokens ?? 'memory',
    fetch: options.fetch,
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the authorize URL (outside a browser)', () => {
  it('computes the S256 challenge of RFC 7636 (appendix B)', async () => {
    expect(await codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('needs a callback URL outside a browser (spec section 5)', async () => {
    await expect(client().signInWithOAuth('github')).rejects.toThrow(/signInWithOAuth needs a callbackUrl outside a browser/);
  });

  it('returns a URL with every query parameter of spec section 7, code and state removed from the callback, and a fresh PKCE pair', async () => {
    const app = client();
    const start = await app.signInWithOAuth('github', {
      callbackUrl: 'https://app.example.com/handler/oauth-callback?after_auth_return_to=%2Fnotes&code=old&state=old',
      providerScope: ['read:org', 'repo'],
    });
    const url = new URL(start.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/api/v1/auth/oauth/authorize/github`);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      client_id: PROJECT,
      client_secret: 'pck_test',
      redirect_uri: 'https://app.example.com/handler/oauth-callback?after_auth_return_to=%2Fnotes',
      grant_type: 'authorization_code',
      code_challenge_method: 'S256',
      response_type: 'code',
      type: 'authenticate',
      error_redirect_url: 'https://app.example.com/handler/oauth-callback?after_auth_return_to=%2Fnotes',
      provider_scope: 'read:org repo',
      state: start.state,
    });
    expect(q.scope).toBeTruthy();
    expect(q.code_challenge).toBe(await codeChallengeS256(start.codeVerifier));
    expect(start.redirectUri).toBe(q.redirect_uri);
    // A signed-out (not anonymous) visitor sends no token.
    expect(q.token).toBeUndefined();
    // 43 base64url characters (32 random bytes): RFC 7636's minimum length, and never repeated.
    expect(start.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await app.signInWithOAuth('github', { callbackUrl: 'https://app.example.com/cb' });
    expect(again.state).not.toBe(start.state);
    expect(again.codeVerifier).not.toBe(start.codeVerifier);
  });

  it("sends an anonymous user's token so the account is upgraded in place, and a signed-in user's token to link", async () => {
    const anonymous = token({ sub: 'anon-user', is_anonymous: true });
    const signedIn = token({ sub: 'ann', is_anonymous: false });
    const upgrade = await client({ tokens: { accessToken: anonymous, refreshToken: 'r1' } }).signInWithOAuth('google', {
      callbackUrl: 'https://app.example.com/cb',
    });
    expect(new URL(upgrade.url).searchParams.get('token')).toBe(anonymous);
    // A signed-in (not anonymous) user signing in with OAuth starts a new sign-in: no token.
    const plain = await client({ tokens: { accessToken: signedIn, refreshToken: 'r2' } }).signInWithOAuth('google', {
      callbackUrl: 'https://app.example.com/cb',
    });
    expect(new URL(plain.url).searchParams.get('token')).toBeNull();

    const link = await client({ tokens: { accessToken: signedIn, refreshToken: 'r2' } }).linkOAuthAccount('google', {
      callbackUrl: 'https://app.example.com/cb',
      afterCallbackRedirectUrl: 'https://app.example.com/settings',
    });
    const q = new URL(link.url).searchParams;
    expect(q.get('type')).toBe('link');
    expect(q.get('token')).toBe(signedIn);
    expect(q.get('after_callback_redirect_url')).toBe('https://app.example.com/settings');
    await expect(client().linkOAuthAccount('google', { callbackUrl: 'https://app.example.com/cb' })).rejects.toThrow(/needs a signed-in user/);
  });
});

describe('callOAuthCallback (outside a browser)', () => {
  it('exchanges the code with the verifier and redirect URI (authorization_code grant) and stores the session', async () => {
    const access = token({ sub: 'user-1', is_anonymous: false });
    const { fetch, requests } = recordingFetch(() => ({
      body: {
        access_token: access,
        refresh_token: 'refresh-1',
        token_type: 'Bearer',
        expires_in: 600,
        scope: 'legacy',
        is_new_user: true,
        after_callback_redirect_url: null,
      },
    }));
    const app = client({ fetch });
    const result = await app.callOAuthCallback({
      url: 'https://app.example.com/handler/oauth-callback?after_auth_return_to=%2Fnotes&code=the-code&state=the-state',
      codeVerifier: 'the-verifier',
      redirectUri: 'https://app.example.com/handler/oauth-callback?after_auth_return_to=%2Fnotes',
    });
    expect(result).toEqual({ user_id: 'user-1', is_new_user: true, type: 'authenticate', after_callback_redirect_url: null });
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.url.href).toBe(`${BASE}/api/v1/auth/oauth/token`);
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      code_verifier: 'the-verifier',
      redirect_uri: 'https://app.example.com/handler/oauth-callback?after_auth_return_to=%2Fnotes',
      client_id: PROJECT,
      client_secret: 'pck_test',
    });
    expect(await app.getAuthTokens()).toEqual({ accessToken: access, refreshToken: 'refresh-1' });
  });

  it('throws the catalogue error of a failed exchange (a reused code) and stores nothing', async () => {
    const { fetch } = recordingFetch(() => ({
      status: 400,
      body: { code: 'INVALID_AUTHORIZATION_CODE', error: new KnownErrors.InvalidAuthorizationCode().message },
    }));
    const app = client({ fetch });
    const call = app.callOAuthCallback({ url: 'https://app.example.com/cb?code=used&state=s', codeVerifier: 'v', redirectUri: 'https://app.example.com/cb' });
    await expect(call).rejects.toBeInstanceOf(KnownErrors.InvalidAuthorizationCode);
    expect(await app.getAuthTokens()).toEqual({ accessToken: null, refreshToken: null });
  });

  it('passes MULTI_FACTOR_AUTHENTICATION_REQUIRED on with its attempt code (the callback page stores it and goes to the mfa route)', async () => {
    const { fetch } = recordingFetch(() => ({
      status: 400,
      body: { code: 'MULTI_FACTOR_AUTHENTICATION_REQUIRED', error: 'MFA required', details: { attempt_code: 'attempt-123' } },
    }));
    const call = client({ fetch }).callOAuthCallback({
      url: 'https://app.example.com/cb?code=c&state=s',
      codeVerifier: 'v',
      redirectUri: 'https://app.example.com/cb',
    });
    const error = await call.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KnownErrors.MultiFactorAuthenticationRequired);
    expect((error as InstanceType<typeof KnownErrors.MultiFactorAuthenticationRequired>).details.attempt_code).toBe('attempt-123');
  });

  it("turns Latch's error redirect into the catalogue error with the catalogue's message, never the URL's text", async () => {
    const { fetch, requests } = recordingFetch(() => ({ body: {} }));
    const app = client({ fetch });
    const denied =
      'https://app.example.com/cb?error=OAUTH_PROVIDER_ACCESS_DENIED&error_description=%3Cb%3EYour%20account%20is%20locked%2C%20call%20555%3C%2Fb%3E';
    const error = await app.callOAuthCallback({ url: denied }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KnownErrors.OAuthProviderAccessDenied);
    expect((error as Error).message).toBe(new KnownErrors.OAuthProviderAccessDenied().message);
    // A plain OAuth code from a provider, and a catalogue error whose message needs arguments.
    await expect(app.callOAuthCallback({ url: 'https://app.example.com/cb?error=access_denied' })).rejects.toBeInstanceOf(
      KnownErrors.OAuthProviderAccessDenied,
    );
    const notEnabled = await app
      .callOAuthCallback({ url: 'https://app.example.com/cb?error=OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED&error_description=x' })
      .catch((e: unknown) => e);
    expect(notEnabled).toBeInstanceOf(KnownErrors.OAuthProviderNotFoundOrNotEnabled);
    expect((notEnabled as Error).message).not.toContain('undefined');
    const unknown = await app.callOAuthCallback({ url: 'https://app.example.com/cb?error=%3Cscript%3E&error_description=evil' }).catch((e: unknown) => e);
    expect((unknown as Error).message).toBe('The sign-in failed (unknown error). Please try again.');
    // Nothing was exchanged for any of them.
    expect(requests).toHaveLength(0);
  });

  it('returns null, with a warning, when the URL has no code and state, or no verifier is known for it', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { fetch, requests } = recordingFetch(() => ({ body: {} }));
    const app = client({ fetch });
    expect(await app.callOAuthCallback({ url: 'https://app.example.com/cb' })).toBeNull();
    // Outside a browser there is no cookie: without the verifier, the state is unknown.
    expect(await app.callOAuthCallback({ url: 'https://app.example.com/cb?code=c&state=s' })).toBeNull();
    expect(warn).toHaveBeenCalledTimes(2);
    expect(requests).toHaveLength(0);
    await expect(client().callOAuthCallback()).rejects.toThrow(/needs the callback URL outside a browser/);
  });
});

// ─── Against a real Latch server and the provider zoo ───────────────────────────────────────────

let h: Harness;
let zoo: Zoo;

beforeAll(async () => void ({ zoo, h } = await startZooHarness({ sharedGitHub: true })), 60_000);
afterAll(() => stopZooHarness({ zoo, h }));

const APP_CALLBACK = 'http://localhost:3000/handler/oauth-callback';

/** A project with GitHub on shared keys and Google on its own client (the zoo's), and its apps. */
async function oauthProject(config: Record<string, unknown> = {}) {
  const google = zoo.clients.google!;
  const project = await h.createProject({
    config: {
      allow_localhost: true,
      oauth_providers: [
        { id: 'github', enabled: true, type: 'shared' },
        { id: 'google', enabled: true, type: 'standard', client_id: google.clientId, client_secret: google.clientSecret },
      ],
      ...config,
    },
  });
  const app = new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: h.url, tokenStore: 'memory' });
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: h.url });
  return { project, app, server };
}

/** What a browser does between the SDK's authorize URL and the app's callback page (cookies carried by hand). */
async function browse(startUrl: string): Promise<string> {
  const authorize = await fetch(startUrl, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const cookie = authorize.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  const consent = await fetch(authorize.headers.get('location')!, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const callback = await fetch(consent.headers.get('location')!, { redirect: 'manual', headers: { cookie } });
  expect(callback.status).toBe(302);
  return callback.headers.get('location')!;
}

/** Signs `app` in with a provider through the whole flow (the SDK's URL, the zoo, the SDK's exchange). */
async function signIn(app: ClientApp, provider: 'github' | 'google', options: { providerScope?: string[]; link?: boolean } = {}) {
  const start = options.link
    ? await app.linkOAuthAccount(provider, {
        callbackUrl: APP_CALLBACK,
        providerScope: options.providerScope,
        afterCallbackRedirectUrl: 'http://localhost:3000/settings',
      })
    : await app.signInWithOAuth(provider, { callbackUrl: APP_CALLBACK, providerScope: options.providerScope, returnUrl: true });
  const landed = await browse(start.url);
  expect(landed.startsWith(`${APP_CALLBACK}?`)).toBe(true);
  return app.callOAuthCallback({ url: landed, codeVerifier: start.codeVerifier, redirectUri: start.redirectUri, type: start.type });
}

describe('the flow against Latch', () => {
  it("signs up with the SDK's own URL and exchange; the same code twice is INVALID_AUTHORIZATION_CODE", async () => {
    const { app } = await oauthProject();
    const email = h.uniqueEmail('sdk-flow');
    zoo.setUser('github', { id: `gh-sdk-${Date.now()}`, email, emailVerified: true, name: 'Ada Lovelace' });
    const start = await app.signInWithOAuth('github', { callbackUrl: APP_CALLBACK, returnUrl: true });
    const landed = await browse(start.url);
    const result = await app.callOAuthCallback({ url: landed, codeVerifier: start.codeVerifier, redirectUri: start.redirectUri });
    expect(result).toMatchObject({ is_new_user: true, type: 'authenticate', after_callback_redirect_url: null });
    const user = await app.getUser({ or: 'throw' });
    expect(user.id).toBe(result?.user_id);
    expect(user.primary_email).toBe(email);
    expect(user.oauth_providers).toEqual([expect.objectContaining({ type: 'github' })]);

    const replay = app.callOAuthCallback({ url: landed, codeVerifier: start.codeVerifier, redirectUri: start.redirectUri });
    await expect(replay).rejects.toBeInstanceOf(KnownErrors.InvalidAuthorizationCode);
    // A wrong verifier is refused too (PKCE), with a fresh code.
    const second = await app.signInWithOAuth('github', { callbackUrl: APP_CALLBACK, returnUrl: true });
    const landedAgain = await browse(second.url);
    await expect(app.callOAuthCallback({ url: landedAgain, codeVerifier: start.codeVerifier, redirectUri: second.redirectUri })).rejects.toBeInstanceOf(
      KnownErrors.InvalidAuthorizationCode,
    );
  });

  it('an anonymous user signing in with OAuth is upgraded in place; linking adds a second provider to the signed-in user', async () => {
    const { app } = await oauthProject({ anonymous_enabled: true });
    zoo.setUser('github', { id: `gh-anon-${Date.now()}`, email: h.uniqueEmail('anon'), emailVerified: true });
    const anonymous = await app.getUser({ or: 'anonymous' });
    const result = await signIn(app, 'github');
    // The anonymous user's token went along: the same user, now signed up.
    expect(result?.user_id).toBe(anonymous.id);
    expect((await app.getUser({ or: 'throw' })).is_anonymous).toBe(false);

    zoo.setUser('google', { id: `g-link-${Date.now()}`, email: 'ada.work@example.com', emailVerified: true });
    const linked = await signIn(app, 'google', { link: true });
    expect(linked).toMatchObject({ user_id: result?.user_id, type: 'link', after_callback_redirect_url: 'http://localhost:3000/settings' });
    const user = await app.getUser({ or: 'throw' });
    expect(user.oauth_providers.map((provider) => provider.type).sort()).toEqual(['github', 'google']);
  });
});

describe('connected accounts and provider accounts', () => {
  it("returns the provider's access token; a missing scope or connection is no token, a thrown error, or (in a browser) a redirect", async () => {
    const { app } = await oauthProject();
    zoo.setUser('github', { id: `gh-token-${Date.now()}`, email: h.uniqueEmail('token'), emailVerified: true });
    await signIn(app, 'github');
    // No Google account yet: not connected.
    expect(await app.getConnectedAccount('google')).toBeNull();
    await expect(app.getConnectedAccount('google', { or: 'throw' })).rejects.toBeInstanceOf(KnownErrors.OAuthConnectionNotConnectedToUser);
    // GitHub runs on shared keys: its tokens are never handed out, and that is an error, not "no token".
    await expect(app.getConnectedAccount('github')).rejects.toBeInstanceOf(KnownErrors.OAuthAccessTokenNotAvailableWithSharedOAuthKeys);

    zoo.setUser('google', { id: `g-token-${Date.now()}`, email: h.uniqueEmail('token-g'), emailVerified: true });
    await signIn(app, 'google', { link: true, providerScope: ['https://www.googleapis.com/auth/drive.readonly'] });
    const account = await app.getConnectedAccount('google', { scopes: ['https://www.googleapis.com/auth/drive.readonly'] });
    expect(account?.provider).toBe('google');
    expect(account?.access_token).toBeTruthy();
    // A scope it was never granted.
    const gmail = ['https://www.googleapis.com/auth/gmail.send'];
    expect(await app.getConnectedAccount('google', { scopes: gmail })).toBeNull();
    await expect(app.getConnectedAccount('google', { scopes: gmail, or: 'throw' })).rejects.toBeInstanceOf(KnownErrors.OAuthConnectionDoesNotHaveRequiredScope);
    // 'redirect' starts linking with the scopes; outside a browser nothing can leave the page.
    await expect(app.getConnectedAccount('google', { scopes: gmail, or: 'redirect' })).rejects.toThrow(/needs a callbackUrl outside a browser/);
  });

  it("lists, updates and deletes the user's provider accounts; server code creates one, and a second sign-in account is a result error", async () => {
    const { app, server } = await oauthProject();
    zoo.setUser('github', { id: `gh-crud-${Date.now()}`, email: h.uniqueEmail('crud'), emailVerified: true });
    const signedIn = await signIn(app, 'github');
    const [account] = await app.listOAuthProviders();
    expect(account).toMatchObject({ type: 'github', user_id: signedIn?.user_id, allow_sign_in: true });
    // Clients never see the provider's account id.
    expect(account?.account_id).toBeUndefined();
    const off = await app.updateOAuthProvider(account!.id, { allow_sign_in: false });
    expect(off.status === 'ok' && off.data.allow_sign_in).toBe(false);
    // The cached list follows the write.
    expect((await app.listOAuthProviders())[0]?.allow_sign_in).toBe(false);

    // Server code: the same account id on another user, for sign-in, while the first is off: fine;
    // then turning the first one back on is the spec's result error.
    const serverView = (await server.listOAuthProviders({ userId: signedIn!.user_id }))[0]!;
    expect(serverView.account_id).toBeTruthy();
    const other = await server.createUser({ primary_email: h.uniqueEmail('other'), primary_email_auth_enabled: true });
    const created = await server.createOAuthProvider({
      user_id: other.id,
      provider_config_id: 'github',
      account_id: serverView.account_id!,
      allow_sign_in: true,
    });
    expect(created.status).toBe('ok');
    const conflict = await app.updateOAuthProvider(account!.id, { allow_sign_in: true });
    expect(conflict.status === 'error' && conflict.error).toBeInstanceOf(KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn);

    await app.deleteOAuthProvider(account!.id);
    expect(await app.listOAuthProviders()).toEqual([]);
    expect((await app.getUser({ or: 'throw' })).oauth_providers).toEqual([]);
  });
});
