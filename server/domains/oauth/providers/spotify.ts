import { type ProviderDefinition, obj, requireId, str } from './types.js';

/** Spotify: /v1/me. Spotify does not say whether the address was verified: not vouched for. */
export const spotify: ProviderDefinition = {
  id: 'spotify',
  endpoints: () => ({
    issuer: 'https://accounts.spotify.com',
    authorizationEndpoint: 'https://accounts.spotify.com/authorize',
    tokenEndpoint: 'https://accounts.spotify.com/api/token',
    apiBase: 'https://api.spotify.com',
  }),
  clientAuth: 'client_secret_basic',
  pkce: true,
  oidc: false,
  baseScopes: ['user-read-email', 'user-read-private'],
  async profile({ api, endpoints }) {
    const me = await api(`${endpoints.apiBase}/v1/me`);
    const images = obj(me, 'images');
    return {
      accountId: requireId(str(me, 'id'), 'spotify'),
      email: str(me, 'email'),
      emailVerified: false,
      displayName: str(me, 'display_name'),
      avatarUrl: Array.isArray(images) && images.length ? str(images[0], 'url') : null,
    };
  },
};
