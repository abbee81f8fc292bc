/**
 * The OAuth providers Latch knows and their display names: the part of the OAuth config section
 * that browser code needs (the UI kit's buttons, the SDK's types), kept free of zod so that an app
 * bundling `@latch/react` does not bundle the config schemas.
 */
export const OAUTH_PROVIDER_IDS = [
  'google',
  'github',
  'microsoft',
  'spotify',
  'facebook',
  'discord',
  'gitlab',
  'bitbucket',
  'linkedin',
  'apple',
  'x',
  'twitch',
] as const;
export type OAuthProviderId = (typeof OAUTH_PROVIDER_IDS)[number];

/** The providers' display names, for buttons and the console (the generic OIDC provider is named per audience). */
export const OAUTH_PROVIDER_DISPLAY_NAMES: Readonly<Record<OAuthProviderId, string>> = {
  google: 'Google',
  github: 'GitHub',
  microsoft: 'Microsoft',
  spotify: 'Spotify',
  facebook: 'Facebook',
  discord: 'Discord',
  gitlab: 'GitLab',
  bitbucket: 'Bitbucket',
  linkedin: 'LinkedIn',
  apple: 'Apple',
  x: 'X',
  twitch: 'Twitch',
};

/**
 * The generic OpenID Connect provider (Okta, Keycloak, Auth0, Entra, Authentik, any IdP): not in the
 * spec's list of 12, configured by its issuer URL (discovery), standard credentials only.
 */
export const OAUTH_GENERIC_OIDC_ID = 'oidc';
/** Every provider id a project's config may hold: the spec's 12 and the generic OIDC provider. */
export const OAUTH_CONFIGURABLE_PROVIDER_IDS = [...OAUTH_PROVIDER_IDS, OAUTH_GENERIC_OIDC_ID] as const;
export type OAuthConfigurableProviderId = (typeof OAUTH_CONFIGURABLE_PROVIDER_IDS)[number];
