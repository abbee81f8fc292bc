import { type ProviderDefinition, obj, requireId, str } from './types.js';

/** X (Twitter) OAuth 2.0: /2/users/me. X gives no email address: the account signs up without one. */
export const x: ProviderDefinition = {
  id: 'x',
  endpoints: () => ({
    issuer: 'https://x.com',
    authorizationEndpoint: 'https://x.com/i/oauth2/authorize',
    tokenEndpoint: 'https://api.x.com/2/oauth2/token',
    apiBase: 'https://api.x.com',
  }),
  clientAuth: 'client_secret_basic',
  pkce: true,
  oidc: false,
  baseScopes: ['users.read', 'tweet.read', 'offline.access'],
  async profile({ api, endpoints }) {
    const data = obj(await api(`${endpoints.apiBase}/2/users/me?user.fields=profile_image_url`), 'data');
    return {
      accountId: requireId(str(data, 'id'), 'x'),
      email: null,
      emailVerified: false,
      displayName: str(data, 'name') ?? str(data, 'username'),
      avatarUrl: str(data, 'profile_image_url'),
    };
  },
};
