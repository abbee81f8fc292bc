import { z } from 'zod';
import { emailSchema, passwordSchema, urlSchema } from '../../validation/schemas.js';

export const passwordSignUpSchema = z.strictObject({
  email: emailSchema,
  password: passwordSchema,
  verification_callback_url: urlSchema.optional(),
});

export const passwordSignInSchema = z.strictObject({ email: emailSchema, password: passwordSchema });
export const passwordUpdateSchema = z.strictObject({ old_password: passwordSchema, new_password: passwordSchema });
export const passwordSetSchema = z.strictObject({ password: passwordSchema });

export const authResponseSchema = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  user_id: z.string(),
  is_new_user: z.boolean(),
});
