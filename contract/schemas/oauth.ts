import { z } from 'zod';
import { shortList, userIdOrMeSchema, uuidSchema } from '../validation/schemas.js';

/** Spec section 3, "OAuth provider account (connected account)"; account_id is server-side only. */
export const oauthProviderAccountSchema = z.object({
  id: z.string(),
  email: z.string().nullable(),
  /** The provider (google, github, …). */
  type: z.string(),
  provider_config_id: z.string(),
  user_id: z.string(),
  allow_sign_in: z.boolean(),
  allow_connected_accounts: z.boolean(),
  account_id: z.string().optional(),
});
export const oauthProviderAccountListSchema = shortList(oauthProviderAccountSchema);

export const oauthProviderListQuerySchema = z.object({ user_id: userIdOrMeSchema.optional() });
export const oauthProviderParamsSchema = z.object({ user_id: userIdOrMeSchema, provider_id: uuidSchema });

export const oauthProviderCreateSchema = z.strictObject({
  user_id: userIdOrMeSchema,
  provider_config_id: z.string().min(1).max(64),
  account_id: z.string().min(1).max(1024),
  email: z.string().max(256).nullish(),
  allow_sign_in: z.boolean().optional(),
  allow_connected_accounts: z.boolean().optional(),
});

export const oauthProviderUpdateSchema = z.strictObject({
  allow_sign_in: z.boolean().optional(),
  allow_connected_accounts: z.boolean().optional(),
  /** Server only. */
  email: z.string().max(256).nullish(),
  /** Server only. */
  account_id: z.string().min(1).max(1024).optional(),
});

export const connectedAccountAccessTokenParamsSchema = z.object({ user_id: userIdOrMeSchema, provider_id: z.string().min(1).max(64) });
export const connectedAccountAccessTokenBodySchema = z.strictObject({ scope: z.string().max(4096).optional() });
export const connectedAccountAccessTokenSchema = z.object({ access_token: z.string() });
