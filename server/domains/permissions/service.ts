import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext, Tenancy } from '../../access/context.js';
import type { ProjectConfig } from '../../../contract/config/project-config.js';
import { isTeamMember } from '../projects/queries.js';
import type { Executor } from '../../db/executor.js';
import { findTeam } from '../teams/queries.js';
import { findUser } from '../users/queries.js';
import { clientOwnUserId, resolveUserId } from '../../access/policy.js';
import * as q from './queries.js';
import { emitWebhookEvent } from '../webhooks/events.js';
import { type PermissionDefinition, systemDefinition, toDefinitionDto } from './dto.js';
import {
  SYSTEM_TEAM_PERMISSIONS,
  type SystemTeamPermission,
  isSystemPermission,
  type projectPermissionListQuerySchema,
  type teamPermissionListQuerySchema,
} from '../../../contract/schemas/permissions.js';

export type PermissionScope = q.PermissionScope;

const SYSTEM_IDS = Object.keys(SYSTEM_TEAM_PERMISSIONS) as SystemTeamPermission[];

// ─── Default permissions ──────────────────────────────────────────────────────────────────────

/** A user joining a team, and as what: its creator or a member. */
export interface Joining {
  teamId: string;
  userId: string;
  role: 'creator' | 'member';
}

/** On joining a team: the creator gets team_creator_default_permissions, anyone else team_member_default_permissions. */
export async function grantTeamDefaults(trx: Executor, tenancy: Tenancy, config: ProjectConfig, { teamId, userId, role }: Joining): Promise<void> {
  const refs = role === 'creator' ? config.team_creator_default_permissions : config.team_member_default_permissions;
  await q.grantDefaults(
    trx,
    tenancy.id,
    { scope: 'team', teamId, userId, systemIds: SYSTEM_IDS },
    refs.map((r) => r.id),
  );
}

/** On sign-up (and any other user creation): user_default_permissions in the project scope. */
export async function grantUserDefaults(trx: Executor, tenancy: Tenancy, config: ProjectConfig, userId: string): Promise<void> {
  await q.grantDefaults(
    trx,
    tenancy.id,
    { scope: 'project', userId },
    config.user_default_permissions.map((r) => r.id),
  );
}

// ─── Definitions (admin) ──────────────────────────────────────────────────────────────────────

export async function listDefinitions(deps: Deps, auth: AuthContext, scope: PermissionScope): Promise<PermissionDefinition[]> {
  const rows = await q.listDefinitions(deps.db, auth.tenancy.id, { scope });
  const custom = rows.map(toDefinitionDto);
  return scope === 'team' ? [...SYSTEM_IDS.map(systemDefinition), ...custom] : custom;
}

/** The definition of `id` in `scope`: PERMISSION_NOT_FOUND, or WRONG_PERMISSION_SCOPE when it lives in the other scope. */
async function requireDefinition(db: Executor, tenancyId: string, scope: PermissionScope, id: string): Promise<PermissionDefinition> {
  if (isSystemPermission(id)) {
    if (scope !== 'team') throw new KnownErrors.WrongPermissionScope(id, scope, 'team');
    return systemDefinition(id);
  }
  const row = await q.findDefinition(db, tenancyId, id);
  if (!row) throw new KnownErrors.PermissionNotFound(id);
  if (row.scope !== scope) throw new KnownErrors.WrongPermissionScope(id, scope, row.scope);
  return toDefinitionDto(row);
}

export function getDefinition(deps: Deps, auth: AuthContext, scope: PermissionScope, id: string): Promise<PermissionDefinition> {
  return requireDefinition(deps.db, auth.tenancy.id, scope, id);
}

/** Contained ids must exist in the same scope (system permissions count in the team scope). */
async function checkContained(trx: Executor, tenancyId: string, scope: PermissionScope, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const custom = unique.filter((id) => !isSystemPermission(id));
  const found = new Map((await q.listDefinitions(trx, tenancyId, { ids: custom })).map((row) => [row.id, row.scope]));
  for (const id of unique) {
    const ok = isSystemPermission(id) ? scope === 'team' : found.get(id) === scope;
    if (!ok) throw new KnownErrors.ContainedPermissionNotFound(id);
  }
  return unique;
}

function cycleError(parentId: string, childId: string) {
  const message =
    parentId === childId
      ? `A permission cannot contain itself: ${JSON.stringify(parentId)} is in its own contained_permission_ids.`
      : `${JSON.stringify(parentId)} cannot contain ${JSON.stringify(childId)}: ${JSON.stringify(childId)} already contains ${JSON.stringify(parentId)} (directly or through other permissions), so this would make a cycle.`;
  return new KnownErrors.SchemaError(message, { issues: [{ path: 'contained_permission_ids', message: 'would make a cycle' }] });
}

/**
 * The team roles a new project starts with, as Stack Auth's do: the team's creator gets
 * `team_admin` (everything a team's own people may do), anyone who joins later `team_member`
 * (reads the members, invites more). Plain definitions: the owner renames, edits or deletes them
 * like any other, and a project created with its own default lists keeps those.
 */
export const DEFAULT_TEAM_ROLES = [
  {
    id: 'team_admin',
    description: 'Manages the team: its settings, members, invitations and API keys',
    contains: ['$update_team', '$delete_team', '$read_members', '$remove_members', '$invite_members', '$manage_api_keys'],
  },
  { id: 'team_member', description: 'A member of the team: reads the other members and invites new ones', contains: ['$read_members', '$invite_members'] },
] as const;

/** Inserts DEFAULT_TEAM_ROLES into a new project's tenancy (inside its creation transaction). */
export async function seedDefaultTeamRoles(trx: Executor, tenancyId: string): Promise<void> {
  for (const role of DEFAULT_TEAM_ROLES) {
    await q.insertDefinition(trx, { tenancy_id: tenancyId, id: role.id, scope: 'team', description: role.description });
    await q.replaceInclusions(trx, tenancyId, role.id, role.contains);
  }
}

export async function createDefinition(
  deps: Deps,
  auth: AuthContext,
  scope: PermissionScope,
  input: { id: string; description?: string | null; contained_permission_ids?: string[] },
): Promise<PermissionDefinition> {
  return deps.db.transaction().execute(async (trx) => {
    await q.lockPermissionGraph(trx, auth.tenancy.id);
    if (await q.findDefinition(trx, auth.tenancy.id, input.id)) throw new KnownErrors.PermissionIdAlreadyExists(input.id);
    if (input.contained_permission_ids?.includes(input.id)) throw cycleError(input.id, input.id);
    const contained = await checkContained(trx, auth.tenancy.id, scope, input.contained_permission_ids ?? []);
    try {
      await q.insertDefinition(trx, { tenancy_id: auth.tenancy.id, id: input.id, scope, description: input.description ?? null });
    } catch (error) {
      if (isUniqueViolation(error)) throw new KnownErrors.PermissionIdAlreadyExists(input.id);
      throw error;
    }
    // A new id has no containers yet, so its edges cannot close a cycle.
    await q.replaceInclusions(trx, auth.tenancy.id, input.id, contained);
    return requireDefinition(trx, auth.tenancy.id, scope, input.id);
  });
}

export async function updateDefinition(
  deps: Deps,
  auth: AuthContext,
  scope: PermissionScope,
  id: string,
  input: { id?: string; description?: string | null; contained_permission_ids?: string[] },
): Promise<PermissionDefinition> {
  return deps.db.transaction().execute(async (trx) => {
    await q.lockPermissionGraph(trx, auth.tenancy.id);
    await requireDefinition(trx, auth.tenancy.id, scope, id);
    const newId = input.id ?? id;
    if (newId !== id && (await q.findDefinition(trx, auth.tenancy.id, newId))) throw new KnownErrors.PermissionIdAlreadyExists(newId);
    let contained: string[] | null = null;
    if (input.contained_permission_ids) {
      // Under its new id, the permission must not contain itself, nor anything that contains it.
      if (input.contained_permission_ids.includes(newId) || input.contained_permission_ids.includes(id)) throw cycleError(newId, newId);
      contained = await checkContained(trx, auth.tenancy.id, scope, input.contained_permission_ids);
      const closing = await q.findCycleThrough(trx, auth.tenancy.id, id, contained);
      if (closing) throw cycleError(newId, closing);
    }
    await q.updateDefinition(trx, auth.tenancy.id, id, {
      ...(newId !== id ? { id: newId } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    });
    if (newId !== id) await q.retargetReferences(trx, auth.tenancy.id, scope, id, newId);
    if (contained) await q.replaceInclusions(trx, auth.tenancy.id, newId, contained);
    return requireDefinition(trx, auth.tenancy.id, scope, newId);
  });
}

/** Deletes a definition; grants of it and edges that contained it go too, in one transaction. */
export async function deleteDefinition(deps: Deps, auth: AuthContext, scope: PermissionScope, id: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await q.lockPermissionGraph(trx, auth.tenancy.id);
    await requireDefinition(trx, auth.tenancy.id, scope, id);
    await q.retargetReferences(trx, auth.tenancy.id, scope, id, null);
    await q.deleteDefinition(trx, auth.tenancy.id, id);
  });
}

// ─── Grants and listing ───────────────────────────────────────────────────────────────────────

/** Whose grants a list shows: a client only its own user's; others one user's, or everyone's (null) when omitted. */
async function listedUserId(deps: Deps, auth: AuthContext, userIdParam: string | undefined): Promise<string | null> {
  if (auth.type === 'client') return clientOwnUserId(deps, auth, userIdParam);
  return userIdParam === undefined ? null : resolveUserId(auth, userIdParam);
}

/**
 * Lists team permissions. Clients see only their own (user_id me or omitted), and only in teams
 * they are in (membership is implied: a grant cannot outlive its membership).
 */
export async function listTeamPermissions(deps: Deps, auth: AuthContext, input: z.infer<typeof teamPermissionListQuerySchema>) {
  const userId = await listedUserId(deps, auth, input.user_id);
  const rows = await q.listTeamPermissions(deps.db, auth.tenancy.id, {
    teamId: input.team_id ?? null,
    userId,
    permissionId: input.permission_id ?? null,
    recursive: input.recursive ?? true,
  });
  return rows.map((row) => ({ id: row.id, team_id: row.team_id, user_id: row.user_id }));
}

export async function listProjectPermissions(deps: Deps, auth: AuthContext, input: z.infer<typeof projectPermissionListQuerySchema>) {
  const userId = await listedUserId(deps, auth, input.user_id);
  const rows = await q.listProjectPermissions(deps.db, auth.tenancy.id, {
    userId,
    permissionId: input.permission_id ?? null,
    recursive: input.recursive ?? true,
  });
  return rows.map((row) => ({ id: row.id, user_id: row.user_id }));
}

/**
 * Requires a user (clients: themselves) to hold a project permission, directly or through any
 * permission containing it: the grant, or PROJECT_PERMISSION_REQUIRED (spec section 6: "a user can
 * lack a permission"). An app's server gates its own actions with one call instead of reading and
 * searching the list. An id no definition has is PERMISSION_NOT_FOUND, so a typo is not mistaken
 * for a missing grant. Read-only, so no transaction: one consistent snapshot is all a check needs.
 */
export async function requireProjectPermission(deps: Deps, auth: AuthContext, userIdParam: string, permissionId: string) {
  const userId = auth.type === 'client' ? await clientOwnUserId(deps, auth, userIdParam) : resolveUserId(auth, userIdParam);
  if (auth.type !== 'client' && !(await findUser(deps.db, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
  await requireDefinition(deps.db, auth.tenancy.id, 'project', permissionId);
  const held = await q.listProjectPermissions(deps.db, auth.tenancy.id, { userId, permissionId, recursive: true });
  if (held.length === 0) throw new KnownErrors.ProjectPermissionRequired(userId, permissionId);
  return { id: permissionId, user_id: userId };
}

/** Server-side only (the router refuses clients): a client can never grant itself anything. */
export async function grantTeamPermission(deps: Deps, auth: AuthContext, teamId: string, userIdParam: string, permissionId: string) {
  const userId = resolveUserId(auth, userIdParam);
  try {
    await deps.db.transaction().execute(async (trx) => {
      await requireDefinition(trx, auth.tenancy.id, 'team', permissionId);
      await requireMembership(trx, auth.tenancy.id, teamId, userId);
      await q.insertTeamGrant(trx, { tenancy_id: auth.tenancy.id, team_id: teamId, user_id: userId, permission_id: permissionId });
      await emitWebhookEvent(trx, auth.tenancy.id, 'team_permission.created', { id: permissionId, team_id: teamId, user_id: userId });
    });
  } catch (error) {
    // The membership ended between the check and the insert (a grant cannot outlive it).
    if (isForeignKeyViolation(error)) throw new KnownErrors.TeamMembershipNotFound(teamId, userId);
    throw error;
  }
  return { id: permissionId, team_id: teamId, user_id: userId };
}

export async function revokeTeamPermission(deps: Deps, auth: AuthContext, teamId: string, userIdParam: string, permissionId: string): Promise<void> {
  const userId = resolveUserId(auth, userIdParam);
  await deps.db.transaction().execute(async (trx) => {
    await requireDefinition(trx, auth.tenancy.id, 'team', permissionId);
    await requireMembership(trx, auth.tenancy.id, teamId, userId);
    // Revoking a permission that was not granted is a no-op, so retries are safe.
    await q.deleteTeamGrant(trx, auth.tenancy.id, teamId, userId, permissionId);
    await emitWebhookEvent(trx, auth.tenancy.id, 'team_permission.deleted', { id: permissionId, team_id: teamId, user_id: userId });
  });
}

export async function grantProjectPermission(deps: Deps, auth: AuthContext, userIdParam: string, permissionId: string) {
  const userId = resolveUserId(auth, userIdParam);
  try {
    await deps.db.transaction().execute(async (trx) => {
      await requireDefinition(trx, auth.tenancy.id, 'project', permissionId);
      if (!(await findUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
      await q.insertProjectGrant(trx, { tenancy_id: auth.tenancy.id, user_id: userId, permission_id: permissionId });
      await emitWebhookEvent(trx, auth.tenancy.id, 'project_permission.created', { id: permissionId, user_id: userId });
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new KnownErrors.UserNotFound();
    throw error;
  }
  return { id: permissionId, user_id: userId };
}

export async function revokeProjectPermission(deps: Deps, auth: AuthContext, userIdParam: string, permissionId: string): Promise<void> {
  const userId = resolveUserId(auth, userIdParam);
  await deps.db.transaction().execute(async (trx) => {
    await requireDefinition(trx, auth.tenancy.id, 'project', permissionId);
    if (!(await findUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
    await q.deleteProjectGrant(trx, auth.tenancy.id, userId, permissionId);
    await emitWebhookEvent(trx, auth.tenancy.id, 'project_permission.deleted', { id: permissionId, user_id: userId });
  });
}

async function requireMembership(trx: Executor, tenancyId: string, teamId: string, userId: string): Promise<void> {
  if (!(await findTeam(trx, tenancyId, teamId))) throw new KnownErrors.TeamNotFound(teamId);
  if (!(await isTeamMember(trx, tenancyId, teamId, userId))) throw new KnownErrors.TeamMembershipNotFound(teamId, userId);
}
