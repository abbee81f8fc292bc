import type { z } from 'zod';
import { SYSTEM_TEAM_PERMISSIONS, type SystemTeamPermission, type permissionDefinitionSchema } from '../../../contract/schemas/permissions.js';
import type { DefinitionWithChildren } from './queries.js';

export type PermissionDefinition = z.infer<typeof permissionDefinitionSchema>;

export function toDefinitionDto(row: DefinitionWithChildren): PermissionDefinition {
  return { id: row.id, description: row.description, contained_permission_ids: row.contained_permission_ids, is_system_permission: false };
}

export function systemDefinition(id: SystemTeamPermission): PermissionDefinition {
  return { id, description: SYSTEM_TEAM_PERMISSIONS[id], contained_permission_ids: [], is_system_permission: true };
}
