import { SignJWT, importPKCS8 } from 'jose';
import { type ProviderDefinition, obj, requireId, str } from './types.js';

/** Lifetime of the client-secret JWT minted per token request (Apple allows up to 6 months). */
const APPLE_SECRET_SECONDS = 300;

/**
 * Sign in with Apple: OpenID Connect with `response_mode=form_post` (the callback is a POST) and a
 * client secret that is an ES256 JWT signed with the developer's key. The project's client_secret
 * is either that JWT already minted, or a JSON object `{"team_id","key_id","private_key"}` (the
 * .p8 PEM) from which Latch mints a short one per request. The name comes only in the first
 * callback's `user` form field; the address from the ID token.
 */
export const apple: ProviderDefinition = {
  id: 'apple',
  endpoints: () => ({
    issuer: 'https://appleid.apple.com',
    authorizationEndpoint: 'https://appleid.apple.com/auth/authorize',
    tokenEndpoint: 'https://appleid.apple.com/auth/token',
    jwksUri: 'https://appleid.apple.com/auth/keys',
  }),
  clientAuth: 'client_secret_post',
  pkce: false,
  oidc: true,
  baseScopes: ['name', 'email'],
  authorizeParams: () => ({ response_mode: 'form_post' }),
  formPost: true,
  async clientSecret(clientId, stored) {
    let key: { team_id?: unknown; key_id?: unknown; private_key?: unknown };
    try {
      key = JSON.parse(stored) as typeof key;
    } catch {
      return stored; // a JWT minted by the developer
    }
    if (typeof key.team_id !== 'string' || typeof key.key_id !== 'string' || typeof key.private_key !== 'string') return stored;
    const privateKey = await importPKCS8(key.private_key, 'ES256');
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: key.key_id })
      .setIssuer(key.team_id)
      .setSubject(clientId)
      .setAudience('https://appleid.apple.com')
      .setIssuedAt(now)
      .setExpirationTime(now + APPLE_SECRET_SECONDS)
      .sign(privateKey);
  },
  async profile({ idClaims, formUser }) {
    let displayName: string | null = null;
    if (formUser) {
      try {
        const name = obj(JSON.parse(formUser), 'name');
        displayName = [str(name, 'firstName'), str(name, 'lastName')].filter(Boolean).join(' ') || null;
      } catch {
        displayName = null;
      }
    }
    const verified = idClaims?.email_verified;
    return {
      accountId: requireId(str(idClaims, 'sub'), 'apple'),
      email: str(idClaims, 'email'),
      // Apple sends the flag as a boolean or as the string "true".
      emailVerified: verified === true || verified === 'true',
      displayName,
      avatarUrl: null,
    };
  },
};
