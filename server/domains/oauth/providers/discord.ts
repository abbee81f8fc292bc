import { type ProviderDefinition, requireId, str } from './types.js';

/** Discord: /users/@me; `verified` says whether the address is verified. */
export const discord: ProviderDefinition = {
  id: 'discord',
  endpoints: () => ({
    issuer: 'https://discord.com',
    authorizationEndpoint: 'https://discord.com/oauth2/authorize',
    tokenEndpoint: 'https://discord.com/api/oauth2/token',
    apiBase: 'https://discord.com/api',
  }),
  clientAuth: 'client_secret_post',
  pkce: true,
  oidc: false,
  baseScopes: ['identify', 'email'],
  async profile({ api, endpoints }) {
    const me = await api(`${endpoints.apiBase}/users/@me`);
    const id = requireId(str(me, 'id'), 'discord');
    const avatar = str(me, 'avatar');
    return {
      accountId: id,
      email: str(me, 'email'),
      emailVerified: (me as { verified?: unknown }).verified === true,
      displayName: str(me, 'global_name') ?? str(me, 'username'),
      avatarUrl: avatar ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : null,
    };
  },
};
