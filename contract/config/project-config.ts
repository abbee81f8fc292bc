/**
 * A project's configuration: the flags and settings of spec section 3. Stored as JSON on the
 * project row; read through `effectiveConfig`, so a key added in a later release gets its default
 * for every existing project without a data migration.
 */
export const OAUTH_PROVIDER_IDS = ['google', 'github', 'microsoft', 'spotify', 'facebook', 'discord', 'gitlab', 'bitbucket', 'linkedin', 'apple', 'x', 'twitch'] as const;
export type OAuthProviderId = (typeof OAUTH_PROVIDER_IDS)[number];

export interface OAuthProviderConfig {
  id: OAuthProviderId;
  enabled: boolean;
  type: 'shared' | 'standard';
  client_id?: string | null;
  /** Stored encrypted (`v1.…`); decrypted only for the admin view and the OAuth flow. */
  client_secret?: string | null;
  facebook_config_id?: string | null;
  microsoft_tenant_id?: string | null;
}

export type EmailServerConfig =
  | { type: 'shared' }
  | {
      type: 'standard';
      host: string;
      port: number;
      username: string;
      /** Stored encrypted (`v1.…`). */
      password: string;
      sender_name: string;
      sender_email: string;
    };

export interface DomainConfig {
  domain: string;
  handler_path: string;
}

export interface PermissionRef {
  id: string;
}

export interface ProjectConfig {
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  anonymous_enabled: boolean;
  allow_localhost: boolean;
  create_team_on_sign_up: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
  oauth_account_merge_strategy: 'link_method' | 'raise_error' | 'allow_duplicates';
  team_creator_default_permissions: PermissionRef[];
  team_member_default_permissions: PermissionRef[];
  user_default_permissions: PermissionRef[];
  email_theme: string | null;
  domains: DomainConfig[];
  oauth_providers: OAuthProviderConfig[];
  email_config: EmailServerConfig;
}

export const DEFAULT_PROJECT_CONFIG: ProjectConfig = {
  sign_up_enabled: true,
  credential_enabled: true,
  magic_link_enabled: false,
  passkey_enabled: false,
  anonymous_enabled: true,
  allow_localhost: true,
  create_team_on_sign_up: false,
  client_team_creation_enabled: false,
  client_user_deletion_enabled: false,
  allow_user_api_keys: false,
  allow_team_api_keys: false,
  oauth_account_merge_strategy: 'link_method',
  team_creator_default_permissions: [],
  team_member_default_permissions: [],
  user_default_permissions: [],
  email_theme: null,
  domains: [],
  oauth_providers: [],
  email_config: { type: 'shared' },
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
