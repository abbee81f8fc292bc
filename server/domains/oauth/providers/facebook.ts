import { type ProviderDefinition, obj, requireId, str } from './types.js';

/** The one place Facebook's Graph API version is pinned (authorize, token and /me follow it). */
export const FACEBOOK_GRAPH_VERSION = 'v21.0';

/**
 * Facebook: Graph /me with explicit fields. Facebook returns an address only once it is confirmed,
 * so a returned address is vouched for. A business login sends the project's config_id.
 */
export const facebook: ProviderDefinition = {
  id: 'facebook',
  endpoints: () => ({
    issuer: 'https://www.facebook.com',
    authorizationEndpoint: `https://www.facebook.com/${FACEBOOK_GRAPH_VERSION}/dialog/oauth`,
    tokenEndpoint: `https://graph.facebook.com/${FACEBOOK_GRAPH_VERSION}/oauth/access_token`,
    apiBase: `https://graph.facebook.com/${FACEBOOK_GRAPH_VERSION}`,
  }),
  clientAuth: 'client_secret_post',
  pkce: true,
  oidc: false,
  baseScopes: ['email', 'public_profile'],
  authorizeParams: ({ facebookConfigId }): Record<string, string> => (facebookConfigId ? { config_id: facebookConfigId } : {}),
  async profile({ api, endpoints }) {
    const me = await api(`${endpoints.apiBase}/me?fields=id,name,email,picture`);
    const email = str(me, 'email');
    return {
      accountId: requireId(str(me, 'id'), 'facebook'),
      email,
      emailVerified: email !== null,
      displayName: str(me, 'name'),
      avatarUrl: str(obj(obj(me, 'picture'), 'data'), 'url'),
    };
  },
};
