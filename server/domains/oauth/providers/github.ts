import { type ProviderDefinition, requireId, str } from './types.js';

/**
 * GitHub: plain OAuth 2.0. The account's addresses come from /user/emails (the primary one,
 * verified flag included); /user's `email` is only the public one. Since 2026 the callback carries
 * `iss=https://github.com/login/oauth` (RFC 9207), so that is the issuer openid-client checks.
 */
export const github: ProviderDefinition = {
  id: 'github',
  endpoints: () => ({
    issuer: 'https://github.com/login/oauth',
    authorizationEndpoint: 'https://github.com/login/oauth/authorize',
    tokenEndpoint: 'https://github.com/login/oauth/access_token',
    apiBase: 'https://api.github.com',
  }),
  clientAuth: 'client_secret_post',
  pkce: true,
  oidc: false,
  baseScopes: ['user:email'],
  apiHeaders: () => ({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' }),
  async profile({ api, endpoints }) {
    const user = await api(`${endpoints.apiBase}/user`);
    const emails = await api(`${endpoints.apiBase}/user/emails`);
    const list = Array.isArray(emails) ? (emails as { email?: unknown; primary?: unknown; verified?: unknown }[]) : [];
    const primary = list.find((e) => e.primary === true) ?? null;
    return {
      accountId: requireId(str(user, 'id'), 'github'),
      email: typeof primary?.email === 'string' ? primary.email : null,
      emailVerified: primary?.verified === true,
      displayName: str(user, 'name') ?? str(user, 'login'),
      avatarUrl: str(user, 'avatar_url'),
    };
  },
};
