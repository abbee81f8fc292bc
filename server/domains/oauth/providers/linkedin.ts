import { type ProviderDefinition, requireId, str } from './types.js';

/**
 * LinkedIn ("Sign In with LinkedIn using OpenID Connect"): the profile from /v2/userinfo. No PKCE
 * for web apps. The ID token is not relied on (the userinfo call over TLS is the profile).
 */
export const linkedin: ProviderDefinition = {
  id: 'linkedin',
  endpoints: () => ({
    issuer: 'https://www.linkedin.com/oauth',
    authorizationEndpoint: 'https://www.linkedin.com/oauth/v2/authorization',
    tokenEndpoint: 'https://www.linkedin.com/oauth/v2/accessToken',
    userinfoEndpoint: 'https://api.linkedin.com/v2/userinfo',
  }),
  clientAuth: 'client_secret_post',
  pkce: false,
  oidc: false,
  baseScopes: ['openid', 'profile', 'email'],
  async profile({ api, endpoints }) {
    const me = await api(endpoints.userinfoEndpoint!);
    return {
      accountId: requireId(str(me, 'sub'), 'linkedin'),
      email: str(me, 'email'),
      emailVerified: (me as { email_verified?: unknown }).email_verified === true,
      displayName: str(me, 'name'),
      avatarUrl: str(me, 'picture'),
    };
  },
};
