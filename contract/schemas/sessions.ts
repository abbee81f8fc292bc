import { z } from 'zod';
import { userIdOrMeSchema, uuidSchema } from '../validation/schemas.js';

export const sessionSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  created_at: z.number(),
  is_impersonation: z.boolean(),
  last_used_at: z.number().nullable(),
  is_current_session: z.boolean(),
  last_used_at_end_user_ip_info: z.object({ ip: z.string() }).nullable(),
});

export const sessionListQuerySchema = z.object({ user_id: userIdOrMeSchema.optional() });
export const sessionDeleteSchema = z.object({ id: uuidSchema, user_id: userIdOrMeSchema.optional() });

export const sessionCreateSchema = z.strictObject({
  user_id: uuidSchema,
  expires_in_millis: z
    .number()
    .int()
    .min(1000)
    .max(10 * 31_536_000_000)
    .optional(),
  is_impersonation: z.boolean().optional(),
});

export const tokenPairSchema = z.object({ access_token: z.string(), refresh_token: z.string() });
export const refreshResponseSchema = z.object({ access_token: z.string() });

export const jwksSchema = z.object({ keys: z.array(z.record(z.string(), z.unknown())) });
