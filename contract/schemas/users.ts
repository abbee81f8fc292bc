import { z } from 'zod';
import {
  displayNameSchema,
  emailSchema,
  imageUrlSchema,
  jsonValueSchema,
  paginatedList,
  passwordSchema,
  userIdOrMeSchema,
  uuidSchema,
} from '../validation/schemas.js';

// A TOTP secret is at least 80 bits (RFC 4226 §4 recommends 160); an empty one would enable MFA with no secret.
const base64Schema = z
  .string()
  .min(16)
  .max(1024)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');

/** What a client may change on its own user (spec section 7, "Users and projects"). */
const clientWritable = {
  display_name: displayNameSchema.nullable(),
  client_metadata: jsonValueSchema.nullable(),
  selected_team_id: uuidSchema.nullable(),
  totp_secret_base64: base64Schema.nullable(),
  profile_image_url: imageUrlSchema.nullable(),
  otp_auth_enabled: z.boolean(),
  passkey_auth_enabled: z.boolean(),
};

/** What server code may also set. */
const serverWritable = {
  ...clientWritable,
  client_read_only_metadata: jsonValueSchema.nullable(),
  server_metadata: jsonValueSchema.nullable(),
  primary_email: emailSchema.nullable(),
  primary_email_verified: z.boolean(),
  primary_email_auth_enabled: z.boolean(),
  password: passwordSchema.nullable(),
  password_hash: z.string().max(512),
};

export const clientUserUpdateSchema = z.strictObject(clientWritable).partial();
export const serverUserUpdateSchema = z.strictObject(serverWritable).partial();
export const userCreateSchema = z.strictObject({ ...serverWritable, is_anonymous: z.boolean() }).partial();

export const userIdParam = { user_id: userIdOrMeSchema };

export const userListQuerySchema = z.object({
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  desc: z.boolean().optional(),
  order_by: z.enum(['signed_up_at']).optional(),
  query: z.string().max(256).optional(),
  include_anonymous: z.boolean().optional(),
  team_id: uuidSchema.optional(),
});

const oauthProviderSchema = z.object({ id: z.string(), type: z.string(), provider_user_id: z.string() });

export const clientUserSchema = z.object({
  id: z.string(),
  display_name: z.string().nullable(),
  primary_email: z.string().nullable(),
  primary_email_verified: z.boolean(),
  auth_with_email: z.boolean(),
  profile_image_url: z.string().nullable(),
  signed_up_at_millis: z.number(),
  client_metadata: z.json().nullable(),
  client_read_only_metadata: z.json().nullable(),
  has_password: z.boolean(),
  otp_auth_enabled: z.boolean(),
  passkey_auth_enabled: z.boolean(),
  requires_totp_mfa: z.boolean(),
  oauth_providers: z.array(oauthProviderSchema),
  selected_team_id: z.string().nullable(),
  is_anonymous: z.boolean(),
});

export const serverUserSchema = clientUserSchema.extend({
  server_metadata: z.json().nullable(),
  last_active_at_millis: z.number(),
});

/**
 * Client callers get the client view; server and admin get server fields too. The strict client
 * view goes first: the hottest answer (a client's GET /users/me) then passes on the first try,
 * and a server view, whose extra keys the strict object refuses, on the second.
 */
export const userOutputSchema = z.union([z.strictObject(clientUserSchema.shape), serverUserSchema]);
export const userListSchema = paginatedList(serverUserSchema);
