import { z } from 'zod';
import { emailSchema, paginatedList, urlSchema, uuidSchema } from '../validation/schemas.js';
import { emailConfigSchema } from '../config/emails.js';

export const emailListQuerySchema = z.object({
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(500).optional(),
});

/** An outbox email as the console lists it (spec section 3, "Sent email", plus delivery state). */
export const sentEmailSchema = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  /** Null until an SMTP server accepted it. */
  sent_at_millis: z.number().nullable(),
  /** The last SMTP error, or why it was not delivered. */
  error: z.string().nullable(),
  state: z.enum(['pending', 'sent', 'failed', 'not-delivered']),
  attempts: z.number(),
  created_at_millis: z.number(),
});
export const sentEmailListSchema = paginatedList(sentEmailSchema);
export const sentEmailDetailSchema = sentEmailSchema.extend({ html: z.string(), text: z.string() });
export const emailIdParamSchema = z.object({ email_id: uuidSchema });

export const sendTestEmailSchema = z.strictObject({
  recipient_email: emailSchema,
  email_config: emailConfigSchema,
});
export const sendTestEmailResultSchema = z.object({
  success: z.boolean(),
  /** Why it failed, in Latch's words (never the SMTP server's own text). */
  error_message: z.string().nullable(),
  /** Why it failed, as a code from a fixed list; only when it failed. */
  error_reason: z
    .enum([
      'host_not_allowed',
      'port_not_allowed',
      'host_not_found',
      'connection_refused',
      'timed_out',
      'tls_failed',
      'auth_failed',
      'rejected',
      'connection_failed',
    ])
    .optional(),
});

export const sendSignInInvitationSchema = z.strictObject({
  email: emailSchema,
  /** Where the emailed link goes (the app's sign-in page): a trusted domain of the project. */
  callback_url: urlSchema,
});

export { renderEmailResultSchema, renderEmailSchema } from './email-content.js';
