import { z } from 'zod';
import { displayNameSchema, imageUrlSchema, jsonValueSchema, shortList, userIdOrMeSchema, uuidSchema } from '../validation/schemas.js';
import { serverUserSchema } from './users.js';

/** What a client holding $update_team may change; the server may also set the two other metadata fields. */
const clientWritable = {
  display_name: displayNameSchema,
  profile_image_url: imageUrlSchema.nullable(),
  client_metadata: jsonValueSchema.nullable(),
};
const serverWritable = {
  ...clientWritable,
  client_read_only_metadata: jsonValueSchema.nullable(),
  server_metadata: jsonValueSchema.nullable(),
};

/** Fields only server access may write (a client sending them gets a SCHEMA_ERROR naming each). */
export const SERVER_ONLY_TEAM_FIELDS = ['client_read_only_metadata', 'server_metadata'] as const;

export const teamCreateSchema = z.strictObject({
  ...serverWritable,
  profile_image_url: serverWritable.profile_image_url.optional(),
  client_metadata: serverWritable.client_metadata.optional(),
  client_read_only_metadata: serverWritable.client_read_only_metadata.optional(),
  server_metadata: serverWritable.server_metadata.optional(),
  /** Who becomes the first member (and gets team_creator_default_permissions); clients: always themselves. */
  creator_user_id: userIdOrMeSchema.optional(),
});

export const teamUpdateSchema = z.strictObject({ team_id: uuidSchema, ...z.object(serverWritable).partial().shape });

export const teamIdParamSchema = z.object({ team_id: uuidSchema });
export const teamListQuerySchema = z.object({ user_id: userIdOrMeSchema.optional() });

export const clientTeamSchema = z.object({
  id: z.string(),
  display_name: z.string(),
  profile_image_url: z.string().nullable(),
  client_metadata: z.json().nullable(),
  client_read_only_metadata: z.json().nullable(),
  created_at_millis: z.number(),
});
export const serverTeamSchema = clientTeamSchema.extend({ server_metadata: z.json().nullable() });
/** Client callers get the client view; server and admin the server view. */
export const teamOutputSchema = z.union([serverTeamSchema, clientTeamSchema]);
export const teamListSchema = shortList(teamOutputSchema);

// ─── Memberships and member profiles ─────────────────────────────────────────────────────────

export const membershipParamsSchema = z.object({ team_id: uuidSchema, user_id: userIdOrMeSchema });
export const leaveTeamParamsSchema = z.object({ team_id: uuidSchema });
export const membershipSchema = z.object({ team_id: z.string(), user_id: z.string() });

export const memberProfileListQuerySchema = z.object({ team_id: uuidSchema.optional(), user_id: userIdOrMeSchema.optional() });
export const memberProfileUpdateSchema = z.strictObject({
  team_id: uuidSchema,
  user_id: userIdOrMeSchema,
  display_name: displayNameSchema.nullable().optional(),
  profile_image_url: imageUrlSchema.nullable().optional(),
});

export const clientMemberProfileSchema = z.object({
  team_id: z.string(),
  user_id: z.string(),
  display_name: z.string().nullable(),
  profile_image_url: z.string().nullable(),
});
/** Server callers also get the member's user (server view), so listing a team's users is one call. */
export const serverMemberProfileSchema = clientMemberProfileSchema.extend({ user: serverUserSchema });
export const memberProfileOutputSchema = z.union([serverMemberProfileSchema, clientMemberProfileSchema]);
export const memberProfileListSchema = shortList(memberProfileOutputSchema);
