import { type ProviderDefinition, obj, requireId, str } from './types.js';

/** Bitbucket: /2.0/user, and the primary address from /2.0/user/emails (`is_confirmed`). No PKCE. */
export const bitbucket: ProviderDefinition = {
  id: 'bitbucket',
  endpoints: () => ({
    issuer: 'https://bitbucket.org',
    authorizationEndpoint: 'https://bitbucket.org/site/oauth2/authorize',
    tokenEndpoint: 'https://bitbucket.org/site/oauth2/access_token',
    apiBase: 'https://api.bitbucket.org/2.0',
  }),
  clientAuth: 'client_secret_basic',
  pkce: false,
  oidc: false,
  baseScopes: ['account', 'email'],
  async profile({ api, endpoints }) {
    const me = await api(`${endpoints.apiBase}/user`);
    const emails = obj(await api(`${endpoints.apiBase}/user/emails`), 'values');
    const list = Array.isArray(emails) ? (emails as { email?: unknown; is_primary?: unknown; is_confirmed?: unknown }[]) : [];
    const primary = list.find((e) => e.is_primary === true) ?? null;
    return {
      accountId: requireId(str(me, 'uuid') ?? str(me, 'account_id'), 'bitbucket'),
      email: typeof primary?.email === 'string' ? primary.email : null,
      emailVerified: primary?.is_confirmed === true,
      displayName: str(me, 'display_name'),
      avatarUrl: str(obj(obj(me, 'links'), 'avatar'), 'href'),
    };
  },
};
