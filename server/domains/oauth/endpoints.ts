/**
 * The endpoints a provider is reached at: its own (providers/<id>.ts), or, when the deployment
 * allows it, an override from LatchEnv.oauth.endpointOverrides (LATCH_OAUTH_ENDPOINT_OVERRIDES,
 * accepted only with NODE_ENV=test or LATCH_ALLOW_OAUTH_ENDPOINT_OVERRIDES=true; tests pass the
 * settings in the env object). The issuer is overridable too but tests keep the real one, so the
 * real `iss` values (GitHub's RFC 9207 one) are what is checked.
 */
import type { OAuthSettings } from '../../env.js';
import type { ProviderDefinition, ProviderEndpoints, ProviderSettings } from './providers/types.js';

const FIELDS: readonly (keyof ProviderEndpoints)[] = ['issuer', 'authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint', 'jwksUri', 'apiBase'];

export function endpointsFor(
  provider: ProviderDefinition,
  settings: ProviderSettings,
  oauth: OAuthSettings | undefined,
): ProviderEndpoints & { overridden: boolean } {
  const own = provider.endpoints(settings);
  const override = oauth?.endpointOverrides?.[provider.id];
  if (!override) return { ...own, overridden: false };
  const merged: ProviderEndpoints = { ...own };
  for (const field of FIELDS) if (typeof override[field] === 'string') merged[field] = override[field];
  return { ...merged, overridden: true };
}
