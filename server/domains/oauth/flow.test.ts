import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_PROVIDER_IDS, type OAuthProviderId } from '../../../contract/config/oauth.js';
import type { Harness, ProjectFixture } from '../../test/harness.js';
import { APP_CALLBACK, redeem, runFlow, signInWith, startZooHarness, stopZooHarness, zooProvider } from '../../test/oauth-driver.js';
import type { Zoo } from '../../test/oauth-zoo.js';
import { expectKnownError } from '../../test/team-fixtures.js';
import { newTotpSecret, totpCode } from '../../crypto/totp.js';

let zoo: Zoo;
let h: Harness;

beforeAll(async () => void ({ zoo, h } = await startZooHarness({ sharedGitHub: true })), 60_000);
afterAll(() => stopZooHarness({ zoo, h }));

const providerConfig = (id: OAuthProviderId, extra: Record<string, unknown> = {}) => zooProvider(zoo, id, extra);

async function projectWith(providers: Record<string, unknown>[], config: Record<string, unknown> = {}): Promise<ProjectFixture> {
  return h.createProject({ config: { allow_localhost: true, oauth_providers: providers, ...config } });
}

async function me(project: ProjectFixture, accessToken: string) {
  return h.get('/users/me', project.client(accessToken));
}

/** What each provider's profile mapping must produce from the zoo's JSON. */
const EMAIL_VOUCHED: Record<OAuthProviderId, boolean> = {
  google: true,
  github: true,
  microsoft: false,
  spotify: false,
  facebook: true,
  discord: true,
  gitlab: true,
  bitbucket: true,
  linkedin: true,
  apple: true,
  x: false,
  twitch: true,
};

describe('sign-in with each provider against the zoo', () => {
  for (const provider of OAUTH_PROVIDER_IDS) {
    it(`${provider}: signs up, then signs in to the same user`, async () => {
      const project = await projectWith([providerConfig(provider)]);
      const email = h.uniqueEmail(provider);
      zoo.setUser(provider, { id: `${provider}-${Date.now()}`, email, emailVerified: true, name: 'Ada Lovelace' });
      const first = await signInWith(h, project, provider);
      expect(first.is_new_user).toBe(true);
      expect(first.id_token).toBe(first.access_token);
      const user = (await me(project, first.access_token)).body;
      expect(user.id).toBe(first.user_id);
      expect(user.oauth_providers).toEqual([{ id: provider, type: provider, provider_user_id: expect.any(String) }]);
      if (provider === 'x') {
        // X gives no address: the account signs up without one.
        expect(user.primary_email).toBeNull();
      } else if (EMAIL_VOUCHED[provider]) {
        expect({ email: user.primary_email, verified: user.primary_email_verified, auth: user.auth_with_email }).toEqual({ email, verified: true, auth: true });
      } else {
        // Microsoft and Spotify do not vouch for the address: a contact address, not a sign-in one.
        expect({ email: user.primary_email, verified: user.primary_email_verified, auth: user.auth_with_email }).toEqual({
          email,
          verified: false,
          auth: false,
        });
      }
      if (provider !== 'x' && provider !== 'apple') expect(user.display_name).toBe('Ada Lovelace');
      if (provider === 'apple') expect(user.display_name).toBe('Ada Lovelace');

      const again = await signInWith(h, project, provider);
      expect(again.is_new_user).toBe(false);
      expect(again.user_id).toBe(first.user_id);
      expect((await me(project, again.access_token)).status).toBe(200);
    });
  }

  it('twitch: the profile call carries the Client-Id header', async () => {
    const project = await projectWith([providerConfig('twitch')]);
    zoo.setUser('twitch', { id: `tw-${Date.now()}`, email: h.uniqueEmail('tw') });
    await signInWith(h, project, 'twitch');
    const call = zoo.requests.filter((r) => r.path === '/twitch/helix/users').at(-1)!;
    expect(call.headers['client-id']).toBe(zoo.clients.twitch!.clientId);
  });

  it('apple: sends an ES256 client-secret JWT (the zoo verifies it) and uses form_post', async () => {
    const project = await projectWith([providerConfig('apple')]);
    zoo.setUser('apple', { id: `ap-${Date.now()}`, email: h.uniqueEmail('ap'), name: 'Grace Hopper' });
    const steps = await runFlow(h, project, 'apple');
    expect(steps.consent!.status).toBe(200);
    expect(steps.callback!.status).toBe(302);
    expect(steps.code).toBeTruthy();
    const token = zoo.requests.filter((r) => r.path === '/apple/token').at(-1)!;
    const secret = new URLSearchParams(token.body).get('client_secret')!;
    expect(secret.split('.')).toHaveLength(3);
    expect(JSON.parse(Buffer.from(secret.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'ES256', kid: 'ZOOKEY01' });
  });
});

describe('the flow', () => {
  it('github: accepts the RFC 9207 iss, works without it, refuses a wrong one', async () => {
    const project = await projectWith([providerConfig('github')]);
    zoo.setUser('github', { id: `${Date.now()}1`, email: h.uniqueEmail('gh') });
    await signInWith(h, project, 'github');
    zoo.failNext('github', 'iss_missing');
    await signInWith(h, project, 'github');
    zoo.failNext('github', 'iss_wrong');
    const steps = await runFlow(h, project, 'github');
    expect(steps.code).toBeUndefined();
    expect(steps.callback!.status).toBe(502);
    expect(steps.callback!.headers.get('x-latch-known-error')).toBe('OAUTH_PROVIDER_REQUEST_FAILED');
  });

  it('redirects back with the outer state and a code; the code is single use and needs the right PKCE verifier and redirect_uri', async () => {
    const project = await projectWith([providerConfig('github')]);
    zoo.setUser('github', { id: `${Date.now()}2`, email: h.uniqueEmail('gh') });
    const steps = await runFlow(h, project, 'github', { afterCallbackRedirectUrl: 'http://localhost:3000/after' });
    const back = new URL(steps.callback!.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(APP_CALLBACK);
    expect(back.searchParams.get('state')).toBe(steps.outerState);

    expectKnownError(await redeem(h, project, { ...steps, codeVerifier: 'x'.repeat(43) }), 400, 'INVALID_AUTHORIZATION_CODE');
    // A wrong verifier burnt the code.
    expectKnownError(await redeem(h, project, steps), 400, 'INVALID_AUTHORIZATION_CODE');

    const second = await runFlow(h, project, 'github');
    expectKnownError(await redeem(h, project, { ...second, redirectUri: 'http://localhost:3000/elsewhere' }), 400, 'INVALID_AUTHORIZATION_CODE');

    const third = await runFlow(h, project, 'github', { afterCallbackRedirectUrl: 'http://localhost:3000/after' });
    const ok = await redeem(h, project, third);
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body).sort()).toEqual(
      ['access_token', 'after_callback_redirect_url', 'expires_in', 'id_token', 'is_new_user', 'refresh_token', 'scope', 'token_type', 'user_id'].sort(),
    );
    expect(ok.body).toMatchObject({ token_type: 'Bearer', scope: 'openid', after_callback_redirect_url: 'http://localhost:3000/after' });
    expectKnownError(await redeem(h, project, third), 400, 'INVALID_AUTHORIZATION_CODE');
    // The refresh grant works with the issued refresh token.
    const refreshed = await h.call('/auth/oauth/token', {
      form: { grant_type: 'refresh_token', refresh_token: ok.body.refresh_token, client_id: project.id, client_secret: project.publishableClientKey },
    });
    expect(refreshed.status).toBe(200);
  });

  it('takes Basic client authentication, with the spec messages for a bad header and wrong credentials', async () => {
    const project = await projectWith([providerConfig('github')]);
    zoo.setUser('github', { id: `${Date.now()}3`, email: h.uniqueEmail('gh') });
    const steps = await runFlow(h, project, 'github');
    const form = { grant_type: 'authorization_code', code: steps.code!, code_verifier: steps.codeVerifier, redirect_uri: steps.redirectUri };
    const bad = await h.call('/auth/oauth/token', { form, headers: { authorization: 'Basic !!!' } });
    expectKnownError(bad, 400, 'SCHEMA_ERROR');
    expect(bad.body.error).toBe('Authorization header must be in the format "Basic <base64>"');
    const wrong = await h.call('/auth/oauth/token', { form, headers: { authorization: `Basic ${Buffer.from(`${project.id}:pck_nope`).toString('base64')}` } });
    expectKnownError(wrong, 400, 'INVALID_OAUTH_CLIENT_ID_OR_SECRET');
    expect(wrong.body.error).toBe('Invalid client_id:client_secret values; did you use the correct values for the integration?');
    const ok = await h.call('/auth/oauth/token', {
      form,
      headers: { authorization: `Basic ${Buffer.from(`${project.id}:${project.publishableClientKey}`).toString('base64')}` },
    });
    expect(ok.status).toBe(200);
  });

  it('a reloaded callback is a clean catalogued error page, never a 500', async () => {
    const project = await projectWith([providerConfig('github')]);
    zoo.setUser('github', { id: `${Date.now()}4`, email: h.uniqueEmail('gh') });
    const steps = await runFlow(h, project, 'github');
    expect(steps.code).toBeTruthy();
    const reload = await steps.reload!();
    expect(reload.status).toBe(400);
    expect(reload.headers.get('x-latch-known-error')).toBe('INVALID_AUTHORIZATION_CODE');
    expect(reload.headers.get('content-type')).toMatch(/text\/html/);
    expect(await reload.text()).toContain('INVALID_AUTHORIZATION_CODE');
    // With error_redirect_url the browser goes back to the app with the code.
    const again = await runFlow(h, project, 'github', { errorRedirectUrl: 'http://localhost:3000/handler/error' });
    const reloaded = await again.reload!();
    expect(reloaded.status).toBe(302);
    const target = new URL(reloaded.headers.get('location')!);
    expect(target.pathname).toBe('/handler/error');
    expect(target.searchParams.get('error')).toBe('INVALID_AUTHORIZATION_CODE');
  });

  it('denied consent, invalid_grant and a failing userinfo are catalogued errors', async () => {
    const project = await projectWith([providerConfig('github'), providerConfig('discord')]);
    zoo.setUser('github', { id: `${Date.now()}5`, email: h.uniqueEmail('gh') });
    zoo.failNext('github', 'access_denied');
    const denied = await runFlow(h, project, 'github');
    expect(denied.callback!.headers.get('x-latch-known-error')).toBe('OAUTH_PROVIDER_ACCESS_DENIED');
    zoo.failNext('github', 'invalid_grant');
    const invalid = await runFlow(h, project, 'github');
    expect(invalid.callback!.headers.get('x-latch-known-error')).toBe('INVALID_AUTHORIZATION_CODE');
    // One 429 and one 500 are retried; a provider that keeps refusing is OAUTH_PROVIDER_REQUEST_FAILED.
    zoo.setUser('discord', { id: `${Date.now()}6`, email: h.uniqueEmail('dc') });
    zoo.failNext('discord', 'userinfo_429');
    zoo.failNext('discord', 'userinfo_500');
    await signInWith(h, project, 'discord');
    zoo.failNext('discord', 'userinfo_429_always');
    const failing = await runFlow(h, project, 'discord');
    expect(failing.callback!.status).toBe(502);
    expect(failing.callback!.headers.get('x-latch-known-error')).toBe('OAUTH_PROVIDER_REQUEST_FAILED');
  });

  it('google: the ID token must carry the flow nonce', async () => {
    const project = await projectWith([providerConfig('google')]);
    zoo.setUser('google', { id: `g-${Date.now()}`, email: h.uniqueEmail('g') });
    zoo.failNext('google', 'wrong_nonce');
    const steps = await runFlow(h, project, 'google');
    expect(steps.code).toBeUndefined();
    expect(steps.callback!.headers.get('x-latch-known-error')).toBe('OAUTH_PROVIDER_REQUEST_FAILED');
  });

  /**
   * Google's flow with the zoo's ID tokens made so (`options`, reset after, since the zoo is shared)
   * is refused as a provider failure; the same user with a normal token is then accepted again, so
   * the refusal was the token's.
   */
  async function expectIdTokenRefused(project: ProjectFixture, options: Zoo['idTokenOptions']) {
    try {
      zoo.idTokenOptions = options;
      const refused = await runFlow(h, project, 'google');
      expect(refused.code).toBeUndefined();
      expect(refused.callback!.headers.get('x-latch-known-error')).toBe('OAUTH_PROVIDER_REQUEST_FAILED');
    } finally {
      zoo.idTokenOptions = {};
    }
    expect((await runFlow(h, project, 'google')).code).toEqual(expect.any(String));
  }

  it('google: an ID token expired 20 s ago passes the 30 s clock tolerance; one expired 60 s ago is refused', async () => {
    const project = await projectWith([providerConfig('google')]);
    zoo.setUser('google', { id: `g-skew-${Date.now()}`, email: h.uniqueEmail('g') });
    try {
      zoo.idTokenOptions = { expOffsetSeconds: -20 };
      expect((await runFlow(h, project, 'google')).code).toEqual(expect.any(String));
    } finally {
      zoo.idTokenOptions = {};
    }
    // The same user and clock, a token expired 60 s ago: refused; a fresh one: accepted again (the refusal was the timestamp).
    await expectIdTokenRefused(project, { expOffsetSeconds: -60 });
  });

  it('google: an ID token signed with a 1024-bit RSA key is refused (RSA keys must be at least 2048 bits)', async () => {
    const project = await projectWith([providerConfig('google')]);
    zoo.setUser('google', { id: `g-weak-${Date.now()}`, email: h.uniqueEmail('g') });
    await expectIdTokenRefused(project, { weakRsaKey: true });
  });

  it('refuses a provider_scope that is not RFC 6749 scope syntax with INVALID_SCOPE, before redirecting to the provider', async () => {
    const project = await projectWith([providerConfig('github')]);
    const authorize = async (providerScope: string) => (await runFlow(h, project, 'github', { providerScope })).authorize;
    const before = zoo.requests.length;
    for (const bad of ['repo "admin"', 'repo\\admin', 'repo  user', ' repo', 'repo ', 'repo\tuser', 'répo', 'repo\nuser', 'a'.repeat(2049)]) {
      const res = await authorize(bad);
      expect({ bad, status: res.status, code: res.headers.get('x-latch-known-error') }).toEqual({ bad, status: 400, code: 'INVALID_SCOPE' });
      // The browser is shown a catalogued error page carrying the message.
      expect(await res.text()).toMatch(bad.length > 2048 ? /at most 2048 characters/ : /RFC 6749, section 3\.3/);
    }
    expect(zoo.requests.length).toBe(before); // nothing reached the provider
    // Legal tokens (including ! # [ ] ~ and URL-shaped scopes) go through to the provider's authorize URL.
    const good = await authorize('repo read:org https://example.com/scope!#[]~ a,b');
    expect(good.status).toBe(302);
    const scope = new URL(good.headers.get('location')!).searchParams.get('scope')!.split(' ');
    expect(scope).toEqual(expect.arrayContaining(['repo', 'read:org', 'https://example.com/scope!#[]~', 'a', 'b']));
  });

  it('refuses disabled and unknown providers, missing shared keys, extra scopes with shared keys, untrusted redirects', async () => {
    const project = await projectWith([
      providerConfig('github', { type: 'shared', client_id: null, client_secret: null }),
      providerConfig('gitlab', { enabled: false }),
      { id: 'spotify', enabled: true, type: 'shared' },
    ]);
    const page = async (provider: string, options = {}) => (await runFlow(h, project, provider, options)).authorize;
    const code = (r: Response) => ({ status: r.status, code: r.headers.get('x-latch-known-error') });
    expect(code(await page('gitlab'))).toEqual({ status: 400, code: 'OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED' });
    expect(code(await page('discord'))).toEqual({ status: 400, code: 'OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED' });
    expect(code(await page('nonsense'))).toEqual({ status: 400, code: 'OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED' });
    const missing = await page('spotify');
    expect(code(missing)).toEqual({ status: 400, code: 'SHARED_OAUTH_KEYS_NOT_CONFIGURED' });
    expect(await missing.text()).toContain('LATCH_OAUTH_SPOTIFY_CLIENT_ID');
    expect(code(await page('github', { providerScope: 'repo' }))).toEqual({ status: 400, code: 'OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS' });
    expect(code(await page('github', { redirectUri: 'https://evil.example/cb' }))).toEqual({ status: 400, code: 'REDIRECT_URL_NOT_WHITELISTED' });
    expect(code(await page('github', { errorRedirectUrl: 'https://evil.example/cb' }))).toEqual({ status: 400, code: 'REDIRECT_URL_NOT_WHITELISTED' });
    // Shared keys from the environment work.
    zoo.setUser('github', { id: `${Date.now()}7`, email: h.uniqueEmail('gh') });
    expect((await signInWith(h, project, 'github')).is_new_user).toBe(true);
  });
});

describe('with the MFA gate', () => {
  it('a user with TOTP on gets MULTI_FACTOR_AUTHENTICATION_REQUIRED from the token endpoint, and the attempt code finishes the sign-in', async () => {
    const project = await projectWith([providerConfig('github')]);
    zoo.setUser('github', { id: `github-mfa-${Date.now()}`, email: h.uniqueEmail('mfa'), emailVerified: true, name: 'Grace Hopper' });
    const first = await signInWith(h, project, 'github');
    const secret = newTotpSecret();
    expect((await h.patch(`/users/${first.user_id}`, { totp_secret_base64: secret }, project.server())).body.requires_totp_mfa).toBe(true);

    const steps = await runFlow(h, project, 'github');
    expect(steps.code).toEqual(expect.any(String));
    const gated = await redeem(h, project, steps);
    expectKnownError(gated, 400, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED');
    expect(gated.body.access_token).toBeUndefined();
    // The code is used up like any other.
    expectKnownError(await redeem(h, project, steps), 400, 'INVALID_AUTHORIZATION_CODE');
    const finished = await h.post('/auth/mfa/sign-in', { type: 'totp', totp: await totpCode(secret), code: gated.body.details.attempt_code }, project.client());
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body).toMatchObject({ user_id: first.user_id, is_new_user: false });
  });
});
