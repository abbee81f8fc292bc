import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientApp } from './client-app.js';
import { KnownErrors } from './errors.js';
import { codeChallengeS256 } from './features/oauth.js';
import { ServerApp } from './server-app.js';

/**
 * The OAuth feature of the SDK, outside a browser (spec sections 2, 4 and 7): the authorize URL
 * and its PKCE, the code exchange, the handling of the error redirect, and the wire of connected
 * accounts and provider accounts. The SDK's requests go to a recording `fetch` (the app's `fetch`
 * option) that answers as the spec's endpoints do, so each test checks what the SDK sends and
 * what it does with the answer. The browser path (cookie, redirect, address bar) runs in Chromium
 * in react-ui/oauth.browser.test.ts.
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

describe('connected accounts', () => {
  const signedIn = () => ({ accessToken: token({ sub: 'ann', is_anonymous: false }), refreshToken: 'r' });

  it("asks for the scopes of the signed-in user's account and returns the provider's access token", async () => {
    const { fetch, requests } = recordingFetch(() => ({ body: { access_token: 'gho_provider_token' } }));
    const tokens = signedIn();
    const account = await client({ fetch, tokens }).getConnectedAccount('github', { scopes: ['repo', 'read:org'] });
    expect(account).toEqual({ provider: 'github', access_token: 'gho_provider_token' });
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.url.pathname).toBe('/api/v1/connected-accounts/me/github/access-token');
    expect(JSON.parse(request?.body ?? '{}')).toEqual({ scope: 'repo read:org' });
    expect(request?.headers['x-latch-access-token']).toBe(tokens.accessToken);
  });

  it('treats a missing scope or a missing connection as no token, a thrown error, or a redirect to reconnect (spec section 8)', async () => {
    for (const code of ['OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE', 'OAUTH_CONNECTION_NOT_CONNECTED_TO_USER']) {
      const { fetch } = recordingFetch(() => ({ status: 400, body: { code, error: 'no' } }));
      const app = client({ fetch, tokens: signedIn() });
      expect(await app.getConnectedAccount('google', { scopes: ['drive'] })).toBeNull();
      const thrown = await app.getConnectedAccount('google', { scopes: ['drive'], or: 'throw' }).catch((e: unknown) => e);
      expect((thrown as { code?: string }).code).toBe(code);
      // 'redirect' starts linking with the scopes; outside a browser nothing can leave the page.
      await expect(app.getConnectedAccount('google', { scopes: ['drive'], or: 'redirect' })).rejects.toThrow(/needs a callbackUrl outside a browser/);
    }
    // Any other error is not "no token".
    const { fetch } = recordingFetch(() => ({ status: 400, body: { code: 'OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS', error: 'shared' } }));
    await expect(client({ fetch, tokens: signedIn() }).getConnectedAccount('google')).rejects.toBeInstanceOf(
      KnownErrors.OAuthAccessTokenNotAvailableWithSharedOAuthKeys,
    );
  });
});

describe('provider accounts of a user', () => {
  const account = { id: 'acc-1', type: 'github', user_id: 'ann', email: 'ann@example.com', allow_sign_in: true, allow_connected_accounts: true };

  it('lists, updates (a second sign-in account is a result error) and deletes through the REST paths of spec section 7', async () => {
    let conflict = false;
    const { fetch, requests } = recordingFetch((request) => {
      if (request.method === 'GET') return { body: { items: [account] } };
      if (request.method === 'PATCH' && conflict)
        return { status: 400, body: { code: 'OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN', error: 'already used' } };
      if (request.method === 'PATCH') return { body: { ...account, allow_sign_in: false } };
      return { body: { success: true } };
    });
    const app = client({ fetch, tokens: { accessToken: token({ sub: 'ann' }), refreshToken: 'r' } });
    expect(await app.listOAuthProviders()).toEqual([account]);
    const updated = await app.updateOAuthProvider('acc-1', { allow_sign_in: false });
    expect(updated).toEqual({ status: 'ok', data: { ...account, allow_sign_in: false } });
    conflict = true;
    const refused = await app.updateOAuthProvider('acc-1', { allow_sign_in: true });
    expect(refused.status === 'error' && refused.error).toBeInstanceOf(KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn);
    await app.deleteOAuthProvider('acc-1');
    expect(requests.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      'GET /api/v1/oauth-providers?user_id=me',
      'PATCH /api/v1/oauth-providers/me/acc-1',
      'PATCH /api/v1/oauth-providers/me/acc-1',
      'DELETE /api/v1/oauth-providers/me/acc-1',
    ]);
    expect(JSON.parse(requests[1]?.body ?? '{}')).toEqual({ allow_sign_in: false });
    // The list is cached until a write: the second read did not ask again before the writes.
    expect(requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });

  it('server code names any user, with the secret server key, and creates accounts', async () => {
    const { fetch, requests } = recordingFetch((request) => (request.method === 'GET' ? { body: { items: [] } } : { body: account }));
    const server = new ServerApp({ projectId: PROJECT, secretServerKey: 'ssk_test', baseUrl: BASE, fetch });
    expect(await server.listOAuthProviders({ userId: 'ann' })).toEqual([]);
    const created = await server.createOAuthProvider({
      user_id: 'ann',
      provider_config_id: 'github',
      account_id: '583231',
      email: 'ann@example.com',
      allow_sign_in: true,
      allow_connected_accounts: false,
    });
    expect(created).toEqual({ status: 'ok', data: account });
    expect(requests.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      'GET /api/v1/oauth-providers?user_id=ann',
      'POST /api/v1/oauth-providers',
    ]);
    for (const request of requests) {
      expect(request.headers['x-latch-access-type']).toBe('server');
      expect(request.headers['x-latch-secret-server-key']).toBe('ssk_test');
      expect(request.headers['x-latch-access-token']).toBeUndefined();
    }
  });
});
