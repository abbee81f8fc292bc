/** Permission definitions and checks (spec section 8, "Permissions and teams"). */
import { defineKnownError } from './known-error.js';

/** The scope of a permission definition. */
export type PermissionScope = 'team' | 'project';

export const permissionErrors = {
  PermissionNotFound: defineKnownError('PERMISSION_NOT_FOUND', 404, (permissionId: string) => ({
    message: `Permission ${JSON.stringify(permissionId)} not found. Make sure it is defined in the project's permission definitions.`,
    details: { permission_id: permissionId },
  })),

  WrongPermissionScope: defineKnownError(
    'WRONG_PERMISSION_SCOPE',
    404,
    (permissionId: string, expectedScope: PermissionScope, actualScope: PermissionScope) => ({
      message:
        `Permission ${JSON.stringify(permissionId)} not found in the ${expectedScope} scope; it is a ${actualScope} permission. ` +
        `Use the ${actualScope}-permission endpoints for it.`,
      details: { permission_id: permissionId, expected_scope: expectedScope, actual_scope: actualScope },
    }),
  ),

  ContainedPermissionNotFound: defineKnownError('CONTAINED_PERMISSION_NOT_FOUND', 400, (permissionId: string) => ({
    message: `The contained permission ${JSON.stringify(permissionId)} does not exist. Define it before referencing it.`,
    details: { permission_id: permissionId },
  })),

  PermissionIdAlreadyExists: defineKnownError('PERMISSION_ID_ALREADY_EXISTS', 400, (permissionId: string) => ({
    message: `A permission with the ID ${JSON.stringify(permissionId)} already exists. Choose a different ID.`,
    details: { permission_id: permissionId },
  })),

  ProjectPermissionRequired: defineKnownError('PROJECT_PERMISSION_REQUIRED', 401, (userId: string, permissionId: string) => ({
    message: `User ${userId} does not have the project permission ${JSON.stringify(permissionId)}.`,
    details: { user_id: userId, permission_id: permissionId },
  })),

  TeamPermissionRequired: defineKnownError('TEAM_PERMISSION_REQUIRED', 401, (teamId: string, userId: string, permissionId: string) => ({
    message: `User ${userId} does not have the permission ${JSON.stringify(permissionId)} in team ${teamId}.`,
    details: { team_id: teamId, user_id: userId, permission_id: permissionId },
  })),
} as const;
