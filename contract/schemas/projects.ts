import { z } from 'zod';
import { apiKeysConfigFields } from '../config/api-keys.js';
import { authConfigFields } from '../config/auth.js';
import { domainSchema, domainsConfigFlagFields } from '../config/domains.js';
import { emailConfigOutputSchema, emailConfigUpdateSchema } from '../config/emails.js';
import { OAUTH_ACCOUNT_MERGE_STRATEGIES, OAUTH_CONFIGURABLE_PROVIDER_IDS, oauthProviderInputSchema, oauthProviderOutputSchema } from '../config/oauth.js';
import { paymentsConfigOutputSchema, paymentsConfigSchema } from '../config/payments.js';
import { permissionRefsSchema, teamsConfigFlagFields } from '../config/teams.js';
import { dataVaultStoresSchema } from '../config/vault.js';
import { displayNameSchema, emailSchema, imageUrlSchema, uuidSchema } from '../validation/schemas.js';

// The config sections' own schemas, re-exported where the console and the email schemas found them.
export { domainSchema } from '../config/domains.js';
export { emailConfigSchema, emailConfigUpdateSchema } from '../config/emails.js';
export { OAUTH_CREDENTIALS_REQUIRED, oauthProviderInputSchema } from '../config/oauth.js';

/**
 * The config flags in their wire order. They come from several sections (each section's fields and
 * schemas live with its type in contract/config/<section>.ts); the order of the keys is part of the
 * published OpenAPI document, so it is fixed here.
 */
const { client_user_deletion_enabled, ...signInFlags } = authConfigFields;
const configFlags = {
  ...signInFlags,
  ...domainsConfigFlagFields,
  ...teamsConfigFlagFields,
  client_user_deletion_enabled,
  ...apiKeysConfigFields,
};

const oauthAccountMergeStrategySchema = z.enum(OAUTH_ACCOUNT_MERGE_STRATEGIES);

export const configUpdateSchema = z
  .strictObject({
    ...configFlags,
    oauth_account_merge_strategy: oauthAccountMergeStrategySchema,
    team_creator_default_permissions: permissionRefsSchema,
    team_member_default_permissions: permissionRefsSchema,
    user_default_permissions: permissionRefsSchema,
    email_theme: uuidSchema.nullable(),
    domains: z.array(domainSchema).max(100),
    oauth_providers: z.array(oauthProviderInputSchema).max(OAUTH_CONFIGURABLE_PROVIDER_IDS.length),
    email_config: emailConfigUpdateSchema,
    data_vault_stores: dataVaultStoresSchema,
    payments: paymentsConfigSchema,
  })
  .partial();

export const projectUpdateSchema = z
  .strictObject({
    display_name: displayNameSchema.min(1),
    description: z.string().max(4096).nullable(),
    is_production_mode: z.boolean(),
    logo_url: imageUrlSchema.nullable(),
    full_logo_url: imageUrlSchema.nullable(),
    config: configUpdateSchema,
  })
  .partial();

export const projectCreateSchema = z.strictObject({
  display_name: displayNameSchema.min(1),
  description: z.string().max(4096).nullish(),
  owner_team_id: uuidSchema.optional(),
  is_production_mode: z.boolean().optional(),
  logo_url: imageUrlSchema.nullish(),
  full_logo_url: imageUrlSchema.nullish(),
  config: configUpdateSchema.optional(),
  /**
   * Start with Stack Auth's team roles: `team_admin` (every $ permission but none of the project's)
   * granted to a team's creator, `team_member` ($read_members, $invite_members) to anyone who joins
   * later. The console sets it; over the API a project starts bare unless asked.
   */
  default_team_roles: z.boolean().optional(),
});

export const productionModeProblemSchema = z.object({ message: z.string(), relative_fix_url: z.string() });

export const adminProjectSchema = z.object({
  id: z.string(),
  branch: z.string(),
  display_name: z.string(),
  description: z.string().nullable(),
  created_at_millis: z.number(),
  is_production_mode: z.boolean(),
  logo_url: z.string().nullable(),
  full_logo_url: z.string().nullable(),
  owner_team_id: z.string().nullable(),
  config: z.object({
    id: z.string(),
    ...configFlags,
    oauth_account_merge_strategy: oauthAccountMergeStrategySchema,
    team_creator_default_permissions: z.array(z.object({ id: z.string() })),
    team_member_default_permissions: z.array(z.object({ id: z.string() })),
    user_default_permissions: z.array(z.object({ id: z.string() })),
    email_theme: z.string().nullable(),
    domains: z.array(z.object({ domain: z.string(), handler_path: z.string() })),
    oauth_providers: z.array(oauthProviderOutputSchema),
    enabled_oauth_providers: z.array(z.object({ id: z.enum(OAUTH_CONFIGURABLE_PROVIDER_IDS) })),
    email_config: emailConfigOutputSchema,
    data_vault_stores: z.array(z.object({ id: z.string(), display_name: z.string() })),
    payments: paymentsConfigOutputSchema,
  }),
  production_mode_problems: z.array(productionModeProblemSchema),
});

export const clientProjectSchema = z.object({
  id: z.string(),
  display_name: z.string(),
  logo_url: z.string().nullable(),
  full_logo_url: z.string().nullable(),
  config: z.object({
    sign_up_enabled: z.boolean(),
    credential_enabled: z.boolean(),
    magic_link_enabled: z.boolean(),
    passkey_enabled: z.boolean(),
    anonymous_enabled: z.boolean(),
    client_team_creation_enabled: z.boolean(),
    client_user_deletion_enabled: z.boolean(),
    allow_user_api_keys: z.boolean(),
    allow_team_api_keys: z.boolean(),
    enabled_oauth_providers: z.array(z.object({ id: z.enum(OAUTH_CONFIGURABLE_PROVIDER_IDS) })),
    domains: z.array(z.object({ domain: z.string(), handler_path: z.string() })),
  }),
});

export const projectTransferSchema = z.strictObject({ project_id: z.string().min(1).max(256), new_team_id: uuidSchema });

export const configOverrideSchema = z.strictObject({ config_override_string: z.string().max(1_000_000) });
export const configOutputSchema = z.object({ config_string: z.string() });

// ─── Co-owners (the members of a project's owner team, a team of the internal project) ─────────

export const projectOwnersPathSchema = z.object({ project_id: z.string().min(1).max(256) });
export const projectOwnerPathSchema = z.object({ project_id: z.string().min(1).max(256), user_id: uuidSchema });
export const projectOwnerInvitationPathSchema = z.object({ project_id: z.string().min(1).max(256), invitation_id: uuidSchema });
/** Invite someone to own a project: the email goes through the internal project, its link opens the console. */
export const projectOwnerInviteSchema = z.strictObject({ project_id: z.string().min(1).max(256), email: emailSchema });

export const projectOwnerSchema = z.object({
  user_id: z.string(),
  display_name: z.string().nullable(),
  primary_email: z.string().nullable(),
  is_current_user: z.boolean(),
  joined_at_millis: z.number(),
});
export const projectOwnerListSchema = z.object({
  items: z.array(projectOwnerSchema),
  is_paginated: z.literal(false),
  /** The owner team: its members own every project it owns (`owned_project_count`). */
  owner_team: z.object({ id: z.string(), display_name: z.string(), owned_project_count: z.number() }),
});
export const projectOwnerInvitationSchema = z.object({ id: z.string(), recipient_email: z.string(), expires_at_millis: z.number() });
export const projectOwnerInviteResultSchema = z.object({ id: z.string() });
