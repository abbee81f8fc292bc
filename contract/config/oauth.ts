/**
 * Project config, OAuth section: the providers a project offers and how an OAuth sign-in whose
 * address matches an existing account is treated (spec section 3, "OAuth provider config").
 */
import { z } from 'zod';

import { OAUTH_CONFIGURABLE_PROVIDER_IDS, OAUTH_GENERIC_OIDC_ID, type OAuthConfigurableProviderId } from './oauth-providers.js';

export {
  OAUTH_CONFIGURABLE_PROVIDER_IDS,
  OAUTH_GENERIC_OIDC_ID,
  OAUTH_PROVIDER_DISPLAY_NAMES,
  OAUTH_PROVIDER_IDS,
  type OAuthConfigurableProviderId,
  type OAuthProviderId,
} from './oauth-providers.js';

export const OAUTH_ACCOUNT_MERGE_STRATEGIES = ['link_method', 'raise_error', 'allow_duplicates'] as const;
export type OAuthAccountMergeStrategy = (typeof OAUTH_ACCOUNT_MERGE_STRATEGIES)[number];

export interface OAuthProviderConfig {
  id: OAuthConfigurableProviderId;
  enabled: boolean;
  type: 'shared' | 'standard';
  client_id?: string | null;
  /** Stored encrypted (`v1.…`); decrypted only for the admin view and the OAuth flow. */
  client_secret?: string | null;
  facebook_config_id?: string | null;
  microsoft_tenant_id?: string | null;
  /** The generic OIDC provider's issuer (its discovery document is `<issuer>/.well-known/openid-configuration`). */
  issuer_url?: string | null;
}

export interface OAuthConfig {
  oauth_account_merge_strategy: OAuthAccountMergeStrategy;
  oauth_providers: OAuthProviderConfig[];
}

export const DEFAULT_OAUTH_CONFIG: OAuthConfig = {
  oauth_account_merge_strategy: 'link_method',
  oauth_providers: [],
};

/** The message for a standard OAuth provider without its credentials (schema and service share it). */
export const OAUTH_CREDENTIALS_REQUIRED = 'standard providers need client_id and client_secret';

/**
 * An OAuth provider as written. The client secret is write-only: reads show `has_client_secret`
 * only, so a standard provider may omit `client_secret` to keep the one stored for the same
 * provider and client id (projects/service.ts refuses the omission when there is none).
 */
export const oauthProviderInputSchema = z
  .strictObject({
    id: z.enum(OAUTH_CONFIGURABLE_PROVIDER_IDS),
    enabled: z.boolean(),
    type: z.enum(['shared', 'standard']),
    client_id: z.string().max(1024).nullish(),
    client_secret: z.string().min(1, OAUTH_CREDENTIALS_REQUIRED).max(4096).nullish(),
    facebook_config_id: z.string().max(1024).nullish(),
    microsoft_tenant_id: z.string().max(1024).nullish(),
    issuer_url: z.string().url().max(2048).nullish(),
  })
  .superRefine((value, ctx) => {
    if (value.id === OAUTH_GENERIC_OIDC_ID) {
      if (value.type !== 'standard')
        ctx.addIssue({ code: 'custom', message: 'the generic OIDC provider has no shared keys: use type standard', path: ['type'] });
      if (!value.issuer_url) ctx.addIssue({ code: 'custom', message: 'the generic OIDC provider needs issuer_url', path: ['issuer_url'] });
    }
    if (value.type === 'standard' && !value.client_id) {
      ctx.addIssue({ code: 'custom', message: OAUTH_CREDENTIALS_REQUIRED, path: ['client_id'] });
    }
  });

/** An OAuth provider as read (admin view). */
export const oauthProviderOutputSchema = z.object({
  id: z.enum(OAUTH_CONFIGURABLE_PROVIDER_IDS),
  enabled: z.boolean(),
  type: z.enum(['shared', 'standard']),
  client_id: z.string().nullable(),
  /** Write-only: whether a client secret is stored (it is never sent back). */
  has_client_secret: z.boolean(),
  facebook_config_id: z.string().nullable(),
  microsoft_tenant_id: z.string().nullable(),
  /** Only on the generic OIDC provider. */
  issuer_url: z.string().nullable().optional(),
});
