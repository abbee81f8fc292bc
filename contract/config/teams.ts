/**
 * Project config, teams-and-permissions section: team creation from sign-up and from clients, and
 * the permissions granted by default (spec section 3, "Config flags" and "Other config fields").
 */
import { z } from 'zod';

export interface PermissionRef {
  id: string;
}

export interface TeamsConfig {
  create_team_on_sign_up: boolean;
  client_team_creation_enabled: boolean;
  team_creator_default_permissions: PermissionRef[];
  team_member_default_permissions: PermissionRef[];
  user_default_permissions: PermissionRef[];
}

export const DEFAULT_TEAMS_CONFIG: TeamsConfig = {
  create_team_on_sign_up: false,
  client_team_creation_enabled: false,
  team_creator_default_permissions: [],
  team_member_default_permissions: [],
  user_default_permissions: [],
};

export const teamsConfigFlagFields = {
  create_team_on_sign_up: z.boolean(),
  client_team_creation_enabled: z.boolean(),
};

/** A default-permission list as written. */
export const permissionRefsSchema = z.array(z.strictObject({ id: z.string().min(1).max(256) })).max(100);
