import { type ProviderDefinition, requireId, str } from './types.js';

/** Google: OpenID Connect; the ID token is verified and carries the profile. */
export const google: ProviderDefinition = {
  id: 'google',
  endpoints: () => ({
    issuer: 'https://accounts.google.com',
    authorizationEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenEndpoint: 'https://oauth2.googleapis.com/token',
    userinfoEndpoint: 'https://openidconnect.googleapis.com/v1/userinfo',
    jwksUri: 'https://www.googleapis.com/oauth2/v3/certs',
  }),
  clientAuth: 'client_secret_post',
  pkce: true,
  oidc: true,
  baseScopes: ['openid', 'email', 'profile'],
  // A refresh token is issued only with offline access, and again only on a consent prompt.
  authorizeParams: () => ({ access_type: 'offline', prompt: 'consent' }),
  async profile({ idClaims }) {
    return {
      accountId: requireId(str(idClaims, 'sub'), 'google'),
      email: str(idClaims, 'email'),
      emailVerified: idClaims?.email_verified === true,
      displayName: str(idClaims, 'name'),
      avatarUrl: str(idClaims, 'picture'),
    };
  },
};
