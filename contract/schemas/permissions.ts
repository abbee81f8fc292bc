import { z } from 'zod';
import { shortList, userIdOrMeSchema, uuidSchema } from '../validation/schemas.js';

/**
 * The system team permissions (spec section 3). They exist in every project without a row, cannot
 * be edited or deleted, and custom team permissions may contain them (an "admin" role that bundles
 * $update_team and $remove_members, say).
 */
export const SYSTEM_TEAM_PERMISSIONS = {
  $update_team: "Update the team's display name, profile image and client metadata",
  $delete_team: 'Delete the team',
  $read_members: "List the team's members and read their profiles",
  $remove_members: 'Remove other members from the team and withdraw invitations',
  $invite_members: 'Invite new members by email',
  $manage_api_keys: "Create, list, update and revoke the team's API keys",
} as const;

export type SystemTeamPermission = keyof typeof SYSTEM_TEAM_PERMISSIONS;

export function isSystemPermission(id: string): id is SystemTeamPermission {
  return Object.hasOwn(SYSTEM_TEAM_PERMISSIONS, id);
}

export const PERMISSION_ID_MAX_LENGTH = 256;

// The messages of spec section 5, verbatim.
export const PERMISSION_ID_CHARSET_MESSAGE = 'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed';
export const INVALID_SYSTEM_PERMISSION_MESSAGE = 'Invalid system permission';
export const SYSTEM_PERMISSION_DOLLAR_MESSAGE = 'System permissions must start with a dollar sign';
export const CUSTOM_PERMISSION_DOLLAR_MESSAGE = 'Custom permission ids may not start with "$"; it marks system permissions';

const permissionIdBase = z
  .string()
  .min(1)
  .max(PERMISSION_ID_MAX_LENGTH)
  .regex(/^\$?[a-z0-9_:]+$/, PERMISSION_ID_CHARSET_MESSAGE);

/** Any permission id a request may name: a custom id, or one of the system permissions. */
export const permissionIdSchema = permissionIdBase.refine((id) => !id.startsWith('$') || isSystemPermission(id), INVALID_SYSTEM_PERMISSION_MESSAGE);

/**
 * The id of a custom definition (create, rename, and the path of PATCH and DELETE): `$` is
 * reserved. In the team scope the bare name of a system permission (`update_team`) is refused
 * too: a custom permission that reads like a system one but grants nothing is a trap.
 */
export function customPermissionIdSchema(scope: 'team' | 'project') {
  return permissionIdBase.superRefine((id, ctx) => {
    if (id.startsWith('$')) {
      ctx.addIssue({ code: 'custom', message: isSystemPermission(id) ? CUSTOM_PERMISSION_DOLLAR_MESSAGE : INVALID_SYSTEM_PERMISSION_MESSAGE });
    } else if (scope === 'team' && isSystemPermission(`$${id}`)) {
      ctx.addIssue({ code: 'custom', message: SYSTEM_PERMISSION_DOLLAR_MESSAGE });
    }
  });
}

const descriptionSchema = z.string().max(1024);
const containedSchema = z.array(permissionIdSchema).max(100);

export function definitionCreateSchema(scope: 'team' | 'project') {
  return z.strictObject({
    id: customPermissionIdSchema(scope),
    description: descriptionSchema.nullable().optional(),
    contained_permission_ids: containedSchema.optional(),
  });
}

export function definitionUpdateSchema(scope: 'team' | 'project') {
  return z.strictObject({
    permission_id: customPermissionIdSchema(scope),
    id: customPermissionIdSchema(scope).optional(),
    description: descriptionSchema.nullable().optional(),
    contained_permission_ids: containedSchema.optional(),
  });
}

/** GET of one definition may name a system permission; PATCH and DELETE may not. */
export const definitionIdParamSchema = z.object({ permission_id: permissionIdSchema });

export function definitionCustomIdParamSchema(scope: 'team' | 'project') {
  return z.object({ permission_id: customPermissionIdSchema(scope) });
}

export const permissionDefinitionSchema = z.object({
  id: z.string(),
  description: z.string().nullable(),
  contained_permission_ids: z.array(z.string()),
  is_system_permission: z.boolean(),
});
export const permissionDefinitionListSchema = shortList(permissionDefinitionSchema);

/** `recursive` defaults to true (spec section 9): a permission counts when any held permission contains it. */
export const teamPermissionListQuerySchema = z.object({
  team_id: uuidSchema.optional(),
  user_id: userIdOrMeSchema.optional(),
  permission_id: permissionIdSchema.optional(),
  recursive: z.boolean().optional(),
});

export const projectPermissionListQuerySchema = z.object({
  user_id: userIdOrMeSchema.optional(),
  permission_id: permissionIdSchema.optional(),
  recursive: z.boolean().optional(),
});

export const teamPermissionParamsSchema = z.object({ team_id: uuidSchema, user_id: userIdOrMeSchema, permission_id: permissionIdSchema });
export const projectPermissionParamsSchema = z.object({ user_id: userIdOrMeSchema, permission_id: permissionIdSchema });

export const teamPermissionSchema = z.object({ id: z.string(), team_id: z.string(), user_id: z.string() });
export const projectPermissionSchema = z.object({ id: z.string(), user_id: z.string() });
export const teamPermissionListSchema = shortList(teamPermissionSchema);
export const projectPermissionListSchema = shortList(projectPermissionSchema);
