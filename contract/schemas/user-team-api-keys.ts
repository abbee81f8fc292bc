import { z } from 'zod';
import { millisSchema, shortList, userIdOrMeSchema, uuidSchema } from '../validation/schemas.js';

const descriptionSchema = z.string().max(1024);
/** null (or omitted) means the key never expires. */
const expiresAtSchema = millisSchema.nullable();

export const userApiKeyCreateSchema = z.strictObject({
  user_id: userIdOrMeSchema.optional(),
  description: descriptionSchema,
  expires_at_millis: expiresAtSchema.optional(),
  is_public: z.boolean().optional(),
});

export const teamApiKeyCreateSchema = z.strictObject({
  team_id: uuidSchema,
  description: descriptionSchema,
  expires_at_millis: expiresAtSchema.optional(),
  is_public: z.boolean().optional(),
});

export const apiKeyUpdateSchema = z.strictObject({
  api_key_id: uuidSchema,
  description: descriptionSchema.optional(),
  expires_at_millis: expiresAtSchema.optional(),
  /** true revokes the key for good; a revoked key cannot be restored. */
  revoked: z.boolean().optional(),
});

export const apiKeyIdParamSchema = z.object({ api_key_id: uuidSchema });
export const userApiKeyListQuerySchema = z.object({ user_id: userIdOrMeSchema.optional() });
export const teamApiKeyListQuerySchema = z.object({ team_id: uuidSchema });
export const apiKeyCheckSchema = z.strictObject({ api_key: z.string().min(1).max(256) });

const common = {
  id: z.string(),
  description: z.string(),
  is_public: z.boolean(),
  created_at_millis: z.number(),
  expires_at_millis: z.number().nullable(),
  manually_revoked_at_millis: z.number().nullable(),
};
const lastFour = z.object({ last_four: z.string() });

export const userApiKeySchema = z.object({ ...common, type: z.literal('user'), user_id: z.string(), value: lastFour });
export const teamApiKeySchema = z.object({ ...common, type: z.literal('team'), team_id: z.string(), value: lastFour });
/** The one response that carries the full key. */
export const userApiKeyCreatedSchema = userApiKeySchema.extend({ value: z.string() });
export const teamApiKeyCreatedSchema = teamApiKeySchema.extend({ value: z.string() });
export const userApiKeyListSchema = shortList(userApiKeySchema);
export const teamApiKeyListSchema = shortList(teamApiKeySchema);
