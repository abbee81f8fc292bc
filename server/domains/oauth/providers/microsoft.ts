import { type ProviderDefinition, requireId, str } from './types.js';

/**
 * Microsoft (Entra ID, personal accounts): the profile from Graph /me. Microsoft does not verify
 * the address a tenant puts in `mail`, so it is never vouched for. No `openid` scope: the ID
 * token's issuer is per tenant (`common` answers with the user's), and Graph is the profile anyway.
 */
export const microsoft: ProviderDefinition = {
  id: 'microsoft',
  endpoints: ({ microsoftTenantId }) => {
    const tenant = encodeURIComponent(microsoftTenantId || 'common');
    return {
      issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
      authorizationEndpoint: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`,
      tokenEndpoint: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
      apiBase: 'https://graph.microsoft.com',
    };
  },
  clientAuth: 'client_secret_post',
  pkce: true,
  oidc: false,
  baseScopes: ['User.Read', 'offline_access'],
  async profile({ api, endpoints }) {
    const me = await api(`${endpoints.apiBase}/v1.0/me`);
    return {
      accountId: requireId(str(me, 'id'), 'microsoft'),
      email: str(me, 'mail') ?? str(me, 'userPrincipalName'),
      emailVerified: false,
      displayName: str(me, 'displayName'),
      avatarUrl: null,
    };
  },
};
