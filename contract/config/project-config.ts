/**
 * A project's configuration: the flags and settings of spec section 3. Stored as JSON on the
 * project row; read through `effectiveConfig`, so a key added in a later release gets its default
 * for every existing project without a data migration.
 *
 * Each section lives in its own file (`./<section>.ts`) with its type, its defaults and its zod
 * schemas; this module assembles them. A new section is one file, spread into `ProjectConfig` and
 * `DEFAULT_PROJECT_CONFIG` here, and its fields added to the wire schemas in
 * `contract/schemas/projects.ts` (which keep the wire's key order, hence list the fields there).
 * Webhooks have no section: webhook endpoints are rows (server/domains/webhooks/), not config.
 */
import { type ApiKeysConfig, DEFAULT_API_KEYS_CONFIG } from './api-keys.js';
import { type AuthConfig, DEFAULT_AUTH_CONFIG } from './auth.js';
import { DEFAULT_DOMAINS_CONFIG, type DomainsConfig } from './domains.js';
import { DEFAULT_EMAILS_CONFIG, type EmailsConfig } from './emails.js';
import { DEFAULT_OAUTH_CONFIG, type OAuthConfig } from './oauth.js';
import { DEFAULT_PAYMENTS_CONFIG, type PaymentsConfig } from './payments.js';
import { DEFAULT_TEAMS_CONFIG, type TeamsConfig } from './teams.js';
import { type DataVaultConfig, DEFAULT_DATA_VAULT_CONFIG } from './vault.js';

export type { ApiKeysConfig } from './api-keys.js';
export type { AuthConfig } from './auth.js';
export type { DomainConfig, DomainsConfig } from './domains.js';
export type { EmailServerConfig, EmailsConfig } from './emails.js';
export { OAUTH_PROVIDER_IDS, type OAuthAccountMergeStrategy, type OAuthConfig, type OAuthProviderConfig, type OAuthProviderId } from './oauth.js';
export type { PermissionRef, TeamsConfig } from './teams.js';
export type { DataVaultConfig, DataVaultStoreConfig } from './vault.js';
export type { PaymentsConfig, PaymentsSettings } from './payments.js';

export interface ProjectConfig extends AuthConfig, DomainsConfig, TeamsConfig, ApiKeysConfig, OAuthConfig, EmailsConfig, DataVaultConfig, PaymentsConfig {}

export const DEFAULT_PROJECT_CONFIG: ProjectConfig = {
  ...DEFAULT_AUTH_CONFIG,
  ...DEFAULT_DOMAINS_CONFIG,
  ...DEFAULT_TEAMS_CONFIG,
  ...DEFAULT_API_KEYS_CONFIG,
  ...DEFAULT_OAUTH_CONFIG,
  ...DEFAULT_EMAILS_CONFIG,
  ...DEFAULT_DATA_VAULT_CONFIG,
  ...DEFAULT_PAYMENTS_CONFIG,
};

/** The stored config with a default for every key it lacks. */
export function effectiveConfig(stored: Record<string, unknown>): ProjectConfig {
  return { ...DEFAULT_PROJECT_CONFIG, ...(stored as Partial<ProjectConfig>) };
}

export const INTERNAL_PROJECT_ID = 'internal';
export const DEFAULT_BRANCH_ID = 'main';

/** The internal project: owners sign up here; the console is its public client. */
export function internalProjectConfig(signUpEnabled: boolean): ProjectConfig {
  return {
    ...DEFAULT_PROJECT_CONFIG,
    sign_up_enabled: signUpEnabled,
    create_team_on_sign_up: true,
    client_team_creation_enabled: true,
    client_user_deletion_enabled: true,
    anonymous_enabled: false,
  };
}
