import { type ProviderDefinition, requireId, str } from './types.js';

/** GitLab (gitlab.com): /api/v4/user. Its primary address is confirmed when `confirmed_at` is set. */
export const gitlab: ProviderDefinition = {
  id: 'gitlab',
  endpoints: () => ({
    issuer: 'https://gitlab.com',
    authorizationEndpoint: 'https://gitlab.com/oauth/authorize',
    tokenEndpoint: 'https://gitlab.com/oauth/token',
    apiBase: 'https://gitlab.com/api/v4',
  }),
  clientAuth: 'client_secret_post',
  pkce: true,
  oidc: false,
  baseScopes: ['read_user'],
  async profile({ api, endpoints }) {
    const me = await api(`${endpoints.apiBase}/user`);
    return {
      accountId: requireId(str(me, 'id'), 'gitlab'),
      email: str(me, 'email'),
      emailVerified: str(me, 'confirmed_at') !== null,
      displayName: str(me, 'name') ?? str(me, 'username'),
      avatarUrl: str(me, 'avatar_url'),
    };
  },
};
