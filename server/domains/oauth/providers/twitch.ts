import { type ProviderDefinition, obj, requireId, str } from './types.js';

/**
 * Twitch: Helix /users needs the `Client-Id` header besides the token. Helix returns an address
 * only with user:read:email and only once verified, so a returned address is vouched for. No PKCE.
 */
export const twitch: ProviderDefinition = {
  id: 'twitch',
  endpoints: () => ({
    issuer: 'https://id.twitch.tv/oauth2',
    authorizationEndpoint: 'https://id.twitch.tv/oauth2/authorize',
    tokenEndpoint: 'https://id.twitch.tv/oauth2/token',
    apiBase: 'https://api.twitch.tv/helix',
  }),
  clientAuth: 'client_secret_post',
  pkce: false,
  oidc: false,
  baseScopes: ['user:read:email'],
  apiHeaders: (clientId) => ({ 'client-id': clientId }),
  async profile({ api, endpoints }) {
    const list = obj(await api(`${endpoints.apiBase}/users`), 'data');
    const user = Array.isArray(list) ? list[0] : undefined;
    const email = str(user, 'email');
    return {
      accountId: requireId(str(user, 'id'), 'twitch'),
      email,
      emailVerified: email !== null,
      displayName: str(user, 'display_name') ?? str(user, 'login'),
      avatarUrl: str(user, 'profile_image_url'),
    };
  },
};
