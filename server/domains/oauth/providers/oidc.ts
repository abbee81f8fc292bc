import { type ProviderDefinition, requireId, str } from './types.js';

/**
 * The generic OpenID Connect provider (Okta, Keycloak, Auth0, Entra, Authentik, any IdP): its
 * endpoints come from the issuer's discovery document (provider-client.ts, discoverEndpoints), the
 * ID token is verified (nonce, issuer, audience, signature against the issuer's JWKS), and the
 * userinfo endpoint adds claims when its `sub` matches. `email_verified` is the IdP's word.
 */
export const oidc: ProviderDefinition = {
  id: 'oidc',
  endpoints: () => {
    throw new Error('the generic OIDC provider is discovered from its issuer');
  },
  clientAuth: 'client_secret_basic',
  pkce: true,
  oidc: true,
  baseScopes: ['openid', 'email', 'profile'],
  async profile({ idClaims, api, endpoints }) {
    let claims: Record<string, unknown> = { ...(idClaims ?? {}) };
    if (endpoints.userinfoEndpoint) {
      const info = await api(endpoints.userinfoEndpoint);
      // Userinfo claims count only for the ID token's subject (OIDC Core §5.3.2).
      if (str(info, 'sub') === str(idClaims, 'sub')) claims = { ...claims, ...(info as Record<string, unknown>) };
    }
    return {
      accountId: requireId(str(claims, 'sub'), 'oidc'),
      email: str(claims, 'email'),
      emailVerified: claims.email_verified === true,
      displayName: str(claims, 'name') ?? str(claims, 'preferred_username'),
      avatarUrl: str(claims, 'picture'),
    };
  },
};
