import { z } from 'zod';
import { emailSchema, shortList, urlSchema, uuidSchema } from '../validation/schemas.js';

export const sendCodeSchema = z.strictObject({
  email: emailSchema,
  team_id: uuidSchema,
  /** The page of the app that accepts the invitation; the emailed link is callback_url?code=… */
  callback_url: urlSchema,
});
export const sendCodeResultSchema = z.object({ success: z.literal(true), id: z.string() });

/** Invitation codes are 224-bit secrets (38 base64url characters); anything far longer is not one. */
export const codeSchema = z.strictObject({ code: z.string().min(1).max(256) });
export const acceptResultSchema = z.object({ success: z.literal(true), team_id: z.string() });
export const checkCodeResultSchema = z.object({ is_code_valid: z.literal(true) });
export const detailsResultSchema = z.object({ team_id: z.string(), team_display_name: z.string() });

export const invitationListQuerySchema = z.object({ team_id: uuidSchema });
export const invitationDeleteSchema = z.object({ invitation_id: uuidSchema, team_id: uuidSchema });

export const invitationSchema = z.object({
  id: z.string(),
  team_id: z.string(),
  recipient_email: z.string(),
  expires_at_millis: z.number(),
});
export const invitationListSchema = shortList(invitationSchema);
