/**
 * Talking to a provider, through openid-client v6 (panva): it takes the provider's endpoints as
 * data (our table, overridable for tests) and does PKCE S256, state, nonce, the token request with
 * the provider's client authentication, ID-token claim checks (with JWKS signature checks for OIDC
 * providers), the RFC 9207 `iss` check and refresh. `arctic` was the alternative, but it hard-codes
 * each provider's endpoints, so the flow could not be pointed at a local provider fake without
 * intercepting fetch.
 */
import * as oidc from 'openid-client';
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { OAUTH_GENERIC_OIDC_ID, type OAuthConfigurableProviderId, type OAuthProviderConfig, type OAuthProviderId } from '../../../contract/config/oauth.js';
import type { ProjectRecord } from '../../access/context.js';
import { revealSecret } from '../projects/service.js';
import { endpointsFor } from './endpoints.js';
import { PROVIDERS } from './providers/index.js';
import { oidc as genericOidc } from './providers/oidc.js';
import type { ProfileContext, ProviderDefinition, ProviderEndpoints, ProviderProfile } from './providers/types.js';

/** The spec's ID-token clock tolerance (section 5, "OAuth flow"). */
const CLOCK_TOLERANCE_SECONDS = 30;
/** How long one provider request may take. */
const PROVIDER_TIMEOUT_SECONDS = 15;
/** Userinfo / API attempts on 429, 5xx or a network error (the last error is OAUTH_PROVIDER_REQUEST_FAILED). */
const API_ATTEMPTS = 3;

export interface ResolvedProvider {
  id: OAuthConfigurableProviderId;
  definition: ProviderDefinition;
  config: OAuthProviderConfig;
  shared: boolean;
  clientId: string;
  clientSecret: string;
  endpoints: ProviderEndpoints & { overridden: boolean };
}

export function isProviderId(id: string): id is OAuthProviderId {
  return Object.prototype.hasOwnProperty.call(PROVIDERS, id);
}

/**
 * The project's provider with its credentials: OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED when the
 * project does not offer it (or it is disabled: disabled providers are listed, never used); for
 * `shared`, the operator's LATCH_OAUTH_<PROVIDER>_CLIENT_ID/SECRET (SHARED_OAUTH_KEYS_NOT_CONFIGURED
 * naming them when unset); for `standard`, the project's id and its sealed secret.
 */
export async function resolveProvider(
  deps: Deps,
  project: ProjectRecord,
  providerId: string,
  options: { requireEnabled?: boolean } = {},
): Promise<ResolvedProvider> {
  const config = project.config.oauth_providers.find((p) => p.id === providerId);
  const generic = providerId === OAUTH_GENERIC_OIDC_ID;
  if (!config || !(isProviderId(providerId) || generic) || ((options.requireEnabled ?? true) && !config.enabled))
    throw new KnownErrors.OAuthProviderNotFoundOrNotEnabled(providerId);
  const definition = generic ? genericOidc : PROVIDERS[providerId as OAuthProviderId];
  let clientId: string;
  let clientSecret: string;
  if (config.type === 'shared') {
    if (generic) throw new KnownErrors.InvalidSharedOAuthProviderId(providerId);
    const shared = deps.env.oauth?.shared[providerId];
    if (!shared) throw new KnownErrors.SharedOAuthKeysNotConfigured(providerId);
    ({ clientId, clientSecret } = shared);
  } else {
    const secret = revealSecret(deps, project.id, config.client_secret);
    if (!config.client_id || !secret) throw new KnownErrors.InvalidStandardOAuthProviderId(providerId);
    clientId = config.client_id;
    clientSecret = secret;
  }
  const endpoints = generic
    ? await discoverEndpoints(deps, config.issuer_url ?? '')
    : endpointsFor(definition, { microsoftTenantId: config.microsoft_tenant_id, facebookConfigId: config.facebook_config_id }, deps.env.oauth);
  return { id: config.id, definition, config, shared: config.type === 'shared', clientId, clientSecret, endpoints };
}

/** Discovery documents are re-read after this long (an IdP may move its endpoints or keys). */
const DISCOVERY_TTL_MILLIS = 10 * 60 * 1000;
const discovered = new Map<string, { at: number; endpoints: ProviderEndpoints }>();

/**
 * The generic OIDC provider's endpoints, from `<issuer>/.well-known/openid-configuration` through
 * openid-client (which checks the document's issuer is the configured one). Plain http issuers are
 * accepted only where endpoint overrides are (test mode), like the provider fakes.
 */
async function discoverEndpoints(deps: Deps, issuerUrl: string): Promise<ProviderEndpoints & { overridden: boolean }> {
  const allowHttp = Boolean(deps.env.oauth?.endpointOverrides);
  if (!issuerUrl || (!issuerUrl.startsWith('https://') && !allowHttp)) throw new KnownErrors.InvalidStandardOAuthProviderId(OAUTH_GENERIC_OIDC_ID);
  const cached = discovered.get(issuerUrl);
  if (cached && Date.now() - cached.at < DISCOVERY_TTL_MILLIS) return { ...cached.endpoints, overridden: allowHttp };
  let metadata;
  try {
    const found = await oidc.discovery(new URL(issuerUrl), 'latch', undefined, undefined, {
      ...(allowHttp ? { execute: [oidc.allowInsecureRequests] } : {}),
      timeout: PROVIDER_TIMEOUT_SECONDS,
    });
    metadata = found.serverMetadata();
  } catch (error) {
    throw Object.assign(new KnownErrors.OAuthProviderRequestFailed(OAUTH_GENERIC_OIDC_ID), { cause: error });
  }
  if (!metadata.authorization_endpoint || !metadata.token_endpoint) throw new KnownErrors.OAuthProviderRequestFailed(OAUTH_GENERIC_OIDC_ID);
  const endpoints: ProviderEndpoints = {
    issuer: metadata.issuer,
    authorizationEndpoint: metadata.authorization_endpoint,
    tokenEndpoint: metadata.token_endpoint,
    ...(metadata.userinfo_endpoint ? { userinfoEndpoint: metadata.userinfo_endpoint } : {}),
    ...(metadata.jwks_uri ? { jwksUri: metadata.jwks_uri } : {}),
  };
  discovered.set(issuerUrl, { at: Date.now(), endpoints });
  return { ...endpoints, overridden: allowHttp };
}

/** The openid-client configuration of a provider: its endpoints as server metadata, its client auth. */
export async function clientConfiguration(provider: ResolvedProvider): Promise<oidc.Configuration> {
  const { definition, endpoints } = provider;
  const secret = definition.clientSecret ? await definition.clientSecret(provider.clientId, provider.clientSecret) : provider.clientSecret;
  const auth = definition.clientAuth === 'client_secret_basic' ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
  const config = new oidc.Configuration(
    {
      issuer: endpoints.issuer,
      authorization_endpoint: endpoints.authorizationEndpoint,
      token_endpoint: endpoints.tokenEndpoint,
      ...(endpoints.userinfoEndpoint ? { userinfo_endpoint: endpoints.userinfoEndpoint } : {}),
      ...(endpoints.jwksUri ? { jwks_uri: endpoints.jwksUri } : {}),
    },
    provider.clientId,
    { [oidc.clockTolerance]: CLOCK_TOLERANCE_SECONDS },
    auth,
  );
  config.timeout = PROVIDER_TIMEOUT_SECONDS;
  // Plain http only for endpoints an allowed override points at a local fake (tests).
  if (endpoints.overridden && endpoints.tokenEndpoint.startsWith('http:')) oidc.allowInsecureRequests(config);
  // OIDC providers: the ID token's signature is checked against the provider's JWKS too.
  if (definition.oidc) oidc.enableNonRepudiationChecks(config);
  return config;
}

function isTransient(status: number): boolean {
  return status === 429 || status >= 500;
}

/** GET a provider API with the access token; 429/5xx/network errors are retried, then OAUTH_PROVIDER_REQUEST_FAILED. */
export function apiGetter(provider: ResolvedProvider, accessToken: string): (url: string) => Promise<unknown> {
  return async (url) => {
    let lastError: unknown;
    for (let attempt = 0; attempt < API_ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      try {
        const response = await fetch(url, {
          headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', ...provider.definition.apiHeaders?.(provider.clientId) },
          signal: AbortSignal.timeout(PROVIDER_TIMEOUT_SECONDS * 1000),
        });
        if (response.ok) return (await response.json()) as unknown;
        lastError = new Error(`${provider.id} answered ${response.status} on its API`);
        if (!isTransient(response.status)) break;
      } catch (error) {
        lastError = error;
      }
    }
    throw Object.assign(new KnownErrors.OAuthProviderRequestFailed(provider.id), { cause: lastError });
  };
}

/** The profile of the signed-in provider account. */
export async function fetchProfile(
  provider: ResolvedProvider,
  tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
  formUser?: string,
): Promise<ProviderProfile> {
  const ctx: ProfileContext = {
    accessToken: tokens.access_token,
    tokens,
    idClaims: tokens.claims(),
    endpoints: provider.endpoints,
    api: apiGetter(provider, tokens.access_token),
    formUser,
  };
  return provider.definition.profile(ctx);
}

/** Whether an error is an OAuth error answer of the provider with this `error` code. */
export function providerErrorCode(error: unknown): string | null {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) return error.error;
  return null;
}
