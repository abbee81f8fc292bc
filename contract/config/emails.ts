/**
 * Project config, emails section: the SMTP server mail goes out through (the deployment's shared
 * one or the project's own) and the theme emails are rendered with (spec section 3, "Email server
 * config" and "Other config fields").
 */
import { z } from 'zod';
import { emailSchema, portSchema } from '../validation/schemas.js';

export type EmailServerConfig =
  | { type: 'shared' }
  | {
      type: 'standard';
      host: string;
      port: number;
      username: string;
      /** Stored encrypted (`v1.…`). */
      password: string;
      sender_name: string;
      sender_email: string;
    };

export interface EmailsConfig {
  email_theme: string | null;
  email_config: EmailServerConfig;
}

export const DEFAULT_EMAILS_CONFIG: EmailsConfig = {
  email_theme: null,
  email_config: { type: 'shared' },
};

/** A project's own SMTP server, as stored. */
const standardEmailServerSchema = z.strictObject({
  type: z.literal('standard'),
  host: z.string().min(1).max(1024),
  port: portSchema,
  username: z.string().max(1024),
  password: z.string().max(4096),
  sender_name: z.string().min(1).max(256),
  sender_email: emailSchema,
});

export const emailConfigSchema = z.discriminatedUnion('type', [z.strictObject({ type: z.literal('shared') }), standardEmailServerSchema]);

/**
 * The email server as written into the project config. The password is write-only (reads show
 * `has_password`): omitting it keeps the stored one, but only while host and username stay the
 * same, so nobody can point the stored password at a server of their choosing and read it there.
 */
export const emailConfigUpdateSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('shared') }),
  standardEmailServerSchema.extend({ password: standardEmailServerSchema.shape.password.optional() }),
]);

/** The email server as read (admin view): the password is write-only, so only whether one is stored. */
export const emailConfigOutputSchema = z.union([
  z.object({ type: z.literal('shared') }),
  z.object({
    type: z.literal('standard'),
    host: z.string(),
    port: z.number(),
    username: z.string(),
    has_password: z.boolean(),
    sender_name: z.string(),
    sender_email: z.string(),
  }),
]);
