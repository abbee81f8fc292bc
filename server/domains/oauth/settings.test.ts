import { describe, expect, it } from 'vitest';
import { oauthSettingsFrom } from '../../env.js';
import { endpointsFor } from './endpoints.js';
import { facebook, FACEBOOK_GRAPH_VERSION } from './providers/facebook.js';
import { github } from './providers/github.js';
import { microsoft } from './providers/microsoft.js';

describe('OAuth settings from the environment', () => {
  it('reads shared credentials per provider and names a missing secret', () => {
    expect(oauthSettingsFrom({ LATCH_OAUTH_GITHUB_CLIENT_ID: 'id', LATCH_OAUTH_GITHUB_CLIENT_SECRET: 'secret' }).shared).toEqual({
      github: { clientId: 'id', clientSecret: 'secret' },
    });
    expect(() => oauthSettingsFrom({ LATCH_OAUTH_X_CLIENT_ID: 'id' })).toThrow('LATCH_OAUTH_X_CLIENT_SECRET');
  });

  it('accepts endpoint overrides only in test mode or with the explicit switch', () => {
    const overrides = JSON.stringify({ github: { tokenEndpoint: 'http://127.0.0.1:1/token' } });
    expect(() => oauthSettingsFrom({ LATCH_OAUTH_ENDPOINT_OVERRIDES: overrides, NODE_ENV: 'production' })).toThrow(/NODE_ENV=test/);
    expect(oauthSettingsFrom({ LATCH_OAUTH_ENDPOINT_OVERRIDES: overrides, NODE_ENV: 'test' }).endpointOverrides).toEqual(JSON.parse(overrides));
    expect(oauthSettingsFrom({ LATCH_OAUTH_ENDPOINT_OVERRIDES: overrides, LATCH_ALLOW_OAUTH_ENDPOINT_OVERRIDES: 'true' }).endpointOverrides).not.toBeNull();
    expect(oauthSettingsFrom({}).endpointOverrides).toBeNull();
  });
});

describe('the endpoint table', () => {
  it('keeps real endpoints unless overridden, and the real issuer even then', () => {
    const real = endpointsFor(github, {}, undefined);
    expect(real).toMatchObject({ issuer: 'https://github.com/login/oauth', tokenEndpoint: 'https://github.com/login/oauth/access_token', overridden: false });
    const overridden = endpointsFor(github, {}, { shared: {}, endpointOverrides: { github: { tokenEndpoint: 'http://zoo/token' } } });
    expect(overridden).toMatchObject({ issuer: 'https://github.com/login/oauth', tokenEndpoint: 'http://zoo/token', overridden: true });
  });

  it('Microsoft follows the tenant; Facebook the one pinned Graph version', () => {
    expect(endpointsFor(microsoft, { microsoftTenantId: 'contoso' }, undefined).authorizationEndpoint).toBe(
      'https://login.microsoftonline.com/contoso/oauth2/v2.0/authorize',
    );
    expect(endpointsFor(microsoft, {}, undefined).tokenEndpoint).toContain('/common/');
    const fb = endpointsFor(facebook, {}, undefined);
    expect(
      [fb.authorizationEndpoint, fb.tokenEndpoint, fb.apiBase].every((u) => u!.includes(`/${FACEBOOK_GRAPH_VERSION}/`) || u!.endsWith(FACEBOOK_GRAPH_VERSION)),
    ).toBe(true);
    expect(facebook.authorizeParams!({ facebookConfigId: 'cfg' })).toEqual({ config_id: 'cfg' });
  });
});
