import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/harness.js';
import { runFlow, signInWith } from '../../test/oauth-driver.js';

/**
 * The generic OIDC provider (issuer + discovery) against oauth2-mock-server 8 (an IdP that is none of
 * the 12). Client ids here have no characters Basic auth form-encodes: the mock does not decode them.
 */
let idp: OAuth2Server;
let h: Harness;
let subject = 'alice';
let email: string | null = 'alice@idp.example';
let emailVerified = true;

beforeAll(async () => {
  idp = new OAuth2Server();
  await idp.issuer.keys.generate('RS256');
  await idp.start(0, '127.0.0.1');
  idp.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    // Access and ID tokens alike carry the current test user.
    token.payload.sub = subject;
    if (email) Object.assign(token.payload, { email, email_verified: emailVerified, name: 'Alice IdP' });
  });
  idp.service.on('beforeUserinfo', (response: { body: Record<string, unknown> }) => {
    response.body = { sub: subject, preferred_username: `${subject}-username`, picture: 'https://idp.example/a.png' };
  });
  // Endpoint overrides on (test mode) also admit an http issuer.
  h = await startHarness({ oauth: { shared: {}, endpointOverrides: {} } });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await idp?.stop();
});

describe('generic OIDC provider', () => {
  it('discovers the issuer, verifies the ID token and signs up and in', async () => {
    const project = await h.createProject({
      config: {
        allow_localhost: true,
        oauth_providers: [{ id: 'oidc', enabled: true, type: 'standard', client_id: 'latchapp1', client_secret: 'idp-secret', issuer_url: idp.issuer.url }],
      },
    });
    subject = `alice-${Date.now()}`;
    email = `${subject}@idp.example`;
    const first = await signInWith(h, project, 'oidc');
    expect(first.is_new_user).toBe(true);
    const user = (await h.get('/users/me', project.client(first.access_token))).body;
    expect(user).toMatchObject({
      primary_email: email,
      primary_email_verified: true,
      display_name: 'Alice IdP',
      profile_image_url: 'https://idp.example/a.png',
    });
    expect(user.oauth_providers).toEqual([{ id: 'oidc', type: 'oidc', provider_user_id: subject }]);
    const again = await signInWith(h, project, 'oidc');
    expect(again).toMatchObject({ user_id: first.user_id, is_new_user: false });

    const admin = await h.get('/internal/projects/current', project.admin());
    expect(admin.body.config.oauth_providers[0]).toMatchObject({ id: 'oidc', issuer_url: idp.issuer.url, has_client_secret: true });
  });

  it('an ID token for another audience is refused', async () => {
    const project = await h.createProject({
      config: {
        allow_localhost: true,
        oauth_providers: [{ id: 'oidc', enabled: true, type: 'standard', client_id: 'latchapp2', client_secret: 's', issuer_url: idp.issuer.url }],
      },
    });
    const wrongAudience = (token: { payload: Record<string, unknown> }) => {
      if (token.payload.nonce) token.payload.aud = 'someone-else';
    };
    idp.service.on('beforeTokenSigning', wrongAudience);
    const steps = await runFlow(h, project, 'oidc').finally(() => idp.service.off('beforeTokenSigning', wrongAudience));
    expect(steps.code).toBeUndefined();
    expect(steps.callback!.headers.get('x-latch-known-error')).toBe('OAUTH_PROVIDER_REQUEST_FAILED');
  });

  it('config: needs issuer_url and standard credentials', async () => {
    const project = await h.createProject({ config: { allow_localhost: true } });
    const patch = (p: Record<string, unknown>) => h.patch('/internal/projects/current', { config: { oauth_providers: [p] } }, project.admin());
    expect((await patch({ id: 'oidc', enabled: true, type: 'standard', client_id: 'a', client_secret: 'b' })).body.code).toBe('SCHEMA_ERROR');
    expect((await patch({ id: 'oidc', enabled: true, type: 'shared', issuer_url: idp.issuer.url })).body.code).toBe('SCHEMA_ERROR');
  });
});
