import { z } from 'zod';
import { emailSchema, passwordSchema, urlSchema } from '../validation/schemas.js';

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

/** The code of an emailed link (224-bit codes are 38 characters; one-time codes 6 + 38). */
const emailedCodeSchema = z.string().min(1).max(256);

export const sendResetCodeSchema = z.strictObject({
  email: emailSchema,
  /** The app's password-reset page; the emailed link is callback_url?code=… */
  callback_url: urlSchema,
});
export const resetCheckCodeSchema = z.strictObject({ code: emailedCodeSchema });
export const resetCheckCodeResultSchema = z.object({ is_code_valid: z.literal(true) });
export const passwordResetSchema = z.strictObject({ code: emailedCodeSchema, password: passwordSchema });

export const otpSendSignInCodeSchema = z.strictObject({
  email: emailSchema,
  /** The app's magic-link callback page; the emailed link is callback_url?code=… */
  callback_url: urlSchema,
});
export const otpSendSignInCodeResultSchema = z.object({
  /** Keep it in the browser that asked: the typed 6-character code is sent as `code + nonce`. */
  nonce: z.string(),
});
export const otpSignInSchema = z.strictObject({
  /** The code from the link, or the typed 6-character code followed by the nonce. */
  code: emailedCodeSchema,
});
