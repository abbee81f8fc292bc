import { z } from 'zod';
import { displayNameSchema, emailSchema, imageUrlSchema, portSchema, uuidSchema } from '../validation/schemas.js';
import { validateTrustedDomain } from '../validation/urls.js';
import { OAUTH_PROVIDER_IDS } from '../config/project-config.js';

const permissionRefs = z.array(z.strictObject({ id: z.string().min(1).max(256) })).max(100);

export const domainSchema = z.strictObject({
  domain: z.string().max(2048).superRefine((value, ctx) => {
    const problem = validateTrustedDomain(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  handler_path: z.string().max(2048).refine((v) => v.startsWith('/'), 'Handler path must start with /'),
});

/** The message for a standard OAuth provider without its credentials (schema and service share it). */
export const OAUTH_CREDENTIALS_REQUIRED = 'standard providers need client_id and client_secret';

/**
 * An OAuth provider as written. The client secret is write-only: reads show `has_client_secret`
 * only, so a standard provider may omit `client_secret` to keep the one stored for the same
 * provider and client id (projects/service.ts refuses the omission when there is none).
 */
export const oauthProviderInputSchema = z.strictObject({
  id: z.enum(OAUTH_PROVIDER_IDS),
  enabled: z.boolean(),
  type: z.enum(['shared', 'standard']),
  client_id: z.string().max(1024).nullish(),
  client_secret: z.string().min(1, OAUTH_CREDENTIALS_REQUIRED).max(4096).nullish(),
  facebook_config_id: z.string().max(1024).nullish(),
  microsoft_tenant_id: z.string().max(1024).nullish(),
}).superRefine((value, ctx) => {
  if (value.type === 'standard' && !value.client_id) {
    ctx.addIssue({ code: 'custom', message: OAUTH_CREDENTIALS_REQUIRED, path: ['client_id'] });
  }
});

/** A project's own SMTP server, as stored. */
const standardEmailServerSchema = z.strictObject({
  type: z.literal('standard'),
  host: z.string().min(1).max(1024),
  port: portSchema,
  username: z.string().max(1024),
  password: z.string().max(4096),
  sender_name: z.string().min(1).max(256),
  sender_email: emailSchema,
});

export const emailConfigSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('shared') }),
  standardEmailServerSchema,
]);

/**
 * The email server as written into the project config. The password is write-only (reads show
 * `has_password`): omitting it keeps the stored one, but only while host and username stay the
 * same, so nobody can point the stored password at a server of their choosing and read it there.
 */
export const emailConfigUpdateSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('shared') }),
  standardEmailServerSchema.extend({ password: standardEmailServerSchema.shape.password.optional() }),
]);

const configFlags = {
  sign_up_enabled: z.boolean(),
  credential_enabled: z.boolean(),
  magic_link_enabled: z.boolean(),
  passkey_enabled: z.boolean(),
  anonymous_enabled: z.boolean(),
  allow_localhost: z.boolean(),
  create_team_on_sign_up: z.boolean(),
  client_team_creation_enabled: z.boolean(),
  client_user_deletion_enabled: z.boolean(),
  allow_user_api_keys: z.boolean(),
  allow_team_api_keys: z.boolean(),
};

export const configUpdateSchema = z.strictObject({
  ...configFlags,
  oauth_account_merge_strategy: z.enum(['link_method', 'raise_error', 'allow_duplicates']),
  team_creator_default_permissions: permissionRefs,
  team_member_default_permissions: permissionRefs,
  user_default_permissions: permissionRefs,
  email_theme: uuidSchema.nullable(),
  domains: z.array(domainSchema).max(100),
  oauth_providers: z.array(oauthProviderInputSchema).max(OAUTH_PROVIDER_IDS.length),
  email_config: emailConfigUpdateSchema,
}).partial();

export const projectUpdateSchema = z.strictObject({
  display_name: displayNameSchema.min(1),
  description: z.string().max(4096).nullable(),
  is_production_mode: z.boolean(),
  logo_url: imageUrlSchema.nullable(),
  full_logo_url: imageUrlSchema.nullable(),
  config: configUpdateSchema,
}).partial();

export const projectCreateSchema = z.strictObject({
  display_name: displayNameSchema.min(1),
  description: z.string().max(4096).nullish(),
  owner_team_id: uuidSchema.optional(),
  is_production_mode: z.boolean().optional(),
  logo_url: imageUrlSchema.nullish(),
  full_logo_url: imageUrlSchema.nullish(),
  config: configUpdateSchema.optional(),
});

const oauthProviderOutput = z.object({
  id: z.enum(OAUTH_PROVIDER_IDS),
  enabled: z.boolean(),
  type: z.enum(['shared', 'standard']),
  client_id: z.string().nullable(),
  /** Write-only: whether a client secret is stored (it is never sent back). */
  has_client_secret: z.boolean(),
  facebook_config_id: z.string().nullable(),
  microsoft_tenant_id: z.string().nullable(),
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
    oauth_account_merge_strategy: z.enum(['link_method', 'raise_error', 'allow_duplicates']),
    team_creator_default_permissions: z.array(z.object({ id: z.string() })),
    team_member_default_permissions: z.array(z.object({ id: z.string() })),
    user_default_permissions: z.array(z.object({ id: z.string() })),
    email_theme: z.string().nullable(),
    domains: z.array(z.object({ domain: z.string(), handler_path: z.string() })),
    oauth_providers: z.array(oauthProviderOutput),
    enabled_oauth_providers: z.array(z.object({ id: z.enum(OAUTH_PROVIDER_IDS) })),
    email_config: z.union([
      z.object({ type: z.literal('shared') }),
      // The password is write-only: whether one is stored, never its value.
      z.object({ type: z.literal('standard'), host: z.string(), port: z.number(), username: z.string(), has_password: z.boolean(), sender_name: z.string(), sender_email: z.string() }),
    ]),
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
    enabled_oauth_providers: z.array(z.object({ id: z.enum(OAUTH_PROVIDER_IDS) })),
    domains: z.array(z.object({ domain: z.string(), handler_path: z.string() })),
  }),
});

export const projectTransferSchema = z.strictObject({ project_id: z.string().min(1).max(256), new_team_id: uuidSchema });

export const configOverrideSchema = z.strictObject({ config_override_string: z.string().max(1_000_000) });
export const configOutputSchema = z.object({ config_string: z.string() });
