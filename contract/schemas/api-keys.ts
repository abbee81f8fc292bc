import { z } from 'zod';
import { millisSchema, uuidSchema } from '../validation/schemas.js';

export const apiKeySetCreateSchema = z.strictObject({
  description: z.string().max(1024),
  expires_at_millis: millisSchema.nullable().optional(),
  has_publishable_client_key: z.boolean(),
  has_secret_server_key: z.boolean(),
  has_super_secret_admin_key: z.boolean(),
});

export const apiKeySetUpdateSchema = z.strictObject({
  api_key_id: uuidSchema,
  description: z.string().max(1024).optional(),
  revoked: z.literal(true).optional(),
});

const lastFour = z.object({ last_four: z.string() }).nullable();

export const apiKeySetSchema = z.object({
  id: z.string(),
  description: z.string(),
  expires_at_millis: z.number().nullable(),
  manually_revoked_at_millis: z.number().nullable(),
  created_at_millis: z.number(),
  publishable_client_key: lastFour,
  secret_server_key: lastFour,
  super_secret_admin_key: lastFour,
  /** Spec section 3 ("Internal project keys"): which kinds the set holds. */
  has_publishable_client_key: z.boolean(),
  has_secret_server_key: z.boolean(),
  has_super_secret_admin_key: z.boolean(),
});

/** The one response that carries the full keys: the create call. */
export const apiKeySetCreatedSchema = apiKeySetSchema.extend({
  publishable_client_key: z.string().nullable(),
  secret_server_key: z.string().nullable(),
  super_secret_admin_key: z.string().nullable(),
});

export const apiKeySetIdSchema = z.object({ api_key_id: uuidSchema });
