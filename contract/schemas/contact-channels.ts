import { z } from 'zod';
import { emailSchema, shortList, urlSchema, userIdOrMeSchema, uuidSchema } from '../validation/schemas.js';

/** Spec section 3, "Contact channel" (type is only email for now). */
export const contactChannelSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  type: z.literal('email'),
  value: z.string(),
  is_primary: z.boolean(),
  is_verified: z.boolean(),
  used_for_auth: z.boolean(),
});
export const contactChannelListSchema = shortList(contactChannelSchema);

export const contactChannelListQuerySchema = z.object({ user_id: userIdOrMeSchema.optional() });
export const contactChannelParamsSchema = z.object({ user_id: userIdOrMeSchema, contact_channel_id: uuidSchema });

export const contactChannelCreateSchema = z.strictObject({
  user_id: userIdOrMeSchema,
  type: z.literal('email'),
  value: emailSchema,
  /** Whether the user signs in with it (password, magic link): unique per project among auth channels. */
  used_for_auth: z.boolean(),
  /** Makes it the user's primary email (the previous primary stays as a secondary channel). */
  is_primary: z.boolean().optional(),
  /** Server only. */
  is_verified: z.boolean().optional(),
});

export const contactChannelUpdateSchema = z.strictObject({
  /** A new value is unverified again (unless the server sets is_verified with it). */
  value: emailSchema.optional(),
  used_for_auth: z.boolean().optional(),
  is_primary: z.boolean().optional(),
  /** Server only. */
  is_verified: z.boolean().optional(),
});

export const sendVerificationCodeSchema = z.strictObject({
  /** Must be the signed-in user's primary email. */
  email: emailSchema,
  /** The app's email-verification page; the emailed link is callback_url?code=… */
  callback_url: urlSchema,
});
export const sendChannelVerificationCodeSchema = z.strictObject({ callback_url: urlSchema });
export const verifySchema = z.strictObject({ code: z.string().min(1).max(256) });
