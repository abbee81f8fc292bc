/**
 * The shape of one OAuth provider: its endpoints as data (so tests and self-hosters can point them
 * elsewhere, see ../endpoints.ts), how the client authenticates, PKCE, scopes, and how its profile
 * becomes `{accountId, email, emailVerified, displayName, avatarUrl}`. The protocol itself (state,
 * PKCE, nonce, the token request, ID-token checks, the RFC 9207 `iss` check) is openid-client's
 * (../flow.ts): see the README section "OAuth" for why that library.
 */
import type { IDToken, TokenEndpointResponse } from 'openid-client';

export interface ProviderEndpoints {
  /** The issuer: checked against an RFC 9207 `iss` response parameter and an ID token's `iss`. */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint?: string;
  jwksUri?: string;
  /** Base URL of the provider's REST API the profile is read from (no trailing slash). */
  apiBase?: string;
}

export interface ProviderProfile {
  accountId: string;
  email: string | null;
  /** Whether the provider vouches that the account owner controls `email`. */
  emailVerified: boolean;
  displayName: string | null;
  avatarUrl: string | null;
}

export interface ProviderSettings {
  microsoftTenantId?: string | null;
  facebookConfigId?: string | null;
}

export interface ProfileContext {
  accessToken: string;
  tokens: TokenEndpointResponse;
  /** The validated ID token's claims (OIDC providers). */
  idClaims?: IDToken;
  endpoints: ProviderEndpoints;
  /** GET a provider API URL with the access token (and the provider's API headers); retries 429/5xx. */
  api(url: string): Promise<unknown>;
  /** Apple's form_post `user` field (name, first sign-in only). */
  formUser?: string;
}

export interface ProviderDefinition {
  id: string;
  endpoints(settings: ProviderSettings): ProviderEndpoints;
  clientAuth: 'client_secret_post' | 'client_secret_basic';
  pkce: boolean;
  /** An OpenID Connect provider: a nonce is sent and the ID token is required and verified (JWKS). */
  oidc: boolean;
  baseScopes: readonly string[];
  /** Extra authorize parameters (offline access, consent prompt, Facebook's config id). */
  authorizeParams?(settings: ProviderSettings): Record<string, string>;
  /** Apple posts the callback (response_mode=form_post). */
  formPost?: boolean;
  /** Extra headers every API call needs (Twitch: Client-Id). */
  apiHeaders?(clientId: string): Record<string, string>;
  /** The client secret to send, derived from the stored one (Apple: an ES256 JWT). */
  clientSecret?(clientId: string, stored: string): Promise<string>;
  profile(ctx: ProfileContext): Promise<ProviderProfile>;
}

/** A string field of a JSON object, or null. */
export function str(value: unknown, key: string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const field = (value as Record<string, unknown>)[key];
  if (typeof field === 'string' && field !== '') return field;
  if (typeof field === 'number') return String(field);
  return null;
}

export function obj(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** A profile without an account id is unusable: the provider answered something unexpected. */
export function requireId(id: string | null, provider: string): string {
  if (!id) throw new Error(`${provider}: the profile has no account id`);
  return id;
}
