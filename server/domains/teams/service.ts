import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import type { TeamRow } from '../../db/schema.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { assertMetadataWithinQuota } from '../rate-limits/quotas.js';
import type { AuthContext, Tenancy } from '../../access/context.js';
import type { ProjectConfig } from '../../../contract/config/project-config.js';
import { INTERNAL_PROJECT_ID } from '../../../contract/config/project-config.js';
import type { Executor } from '../../db/executor.js';
import { grantTeamDefaults, type Joining } from '../permissions/service.js';
import { authorizeTeamAction, clientOwnUserId, isOwnUser, liveSessionUserId, resolveExistingUserId, resolveMe, resolveUserId } from '../../access/policy.js';
import { findUser, setSelectedTeam } from '../users/queries.js';
import { listInvitationIdsOfTeam } from '../team-invitations/queries.js';
import { deleteCodes } from '../verification/service.js';
import * as q from './queries.js';
import { emitWebhookEvent } from '../webhooks/events.js';
import { toMemberProfileDto, toTeamDto } from './dto.js';
import {
  SERVER_ONLY_TEAM_FIELDS,
  type memberProfileListQuerySchema,
  type memberProfileUpdateSchema,
  type teamCreateSchema,
  type teamListQuerySchema,
  type teamUpdateSchema,
} from '../../../contract/schemas/teams.js';

function jsonOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function refuseServerOnlyFields(auth: AuthContext, input: Record<string, unknown>): void {
  if (auth.type !== 'client') return;
  const sent = SERVER_ONLY_TEAM_FIELDS.filter((field) => input[field] !== undefined);
  if (sent.length) {
    throw new KnownErrors.SchemaError(
      `Request validation failed:\n${sent.map((f) => `  - ${f} can only be set with server access (x-latch-access-type: server)`).join('\n')}`,
      { issues: sent.map((f) => ({ path: f, message: 'can only be set with server access' })) },
    );
  }
}

// ─── Membership building blocks (also used by invitations and sign-up) ────────────────────────

/**
 * Adds a user to a team with the default permissions of their role, in the caller's transaction.
 * Returns false (and grants nothing) when they already were a member.
 */
export async function addMember(trx: Executor, tenancy: Tenancy, config: ProjectConfig, joining: Joining): Promise<boolean> {
  const added = await q.insertTeamMember(trx, { tenancy_id: tenancy.id, team_id: joining.teamId, user_id: joining.userId });
  if (added) {
    await grantTeamDefaults(trx, tenancy, config, joining);
    await emitWebhookEvent(trx, tenancy.id, 'team_membership.created', { team_id: joining.teamId, user_id: joining.userId });
  }
  return added;
}

/**
 * Creates a team; with a creator, the creator becomes its first member (with
 * team_creator_default_permissions) and the new team becomes their selected team.
 */
export async function insertTeamWithCreator(
  trx: Executor,
  tenancy: Tenancy,
  config: ProjectConfig,
  team: { display_name: string; profile_image_url?: string | null; client_metadata?: unknown; client_read_only_metadata?: unknown; server_metadata?: unknown },
  creatorUserId: string | null,
): Promise<TeamRow> {
  const row = await q.insertTeam(trx, {
    tenancy_id: tenancy.id,
    id: randomUUID(),
    display_name: team.display_name,
    profile_image_url: team.profile_image_url ?? null,
    client_metadata: jsonOrNull(team.client_metadata),
    client_read_only_metadata: jsonOrNull(team.client_read_only_metadata),
    server_metadata: jsonOrNull(team.server_metadata),
  });
  await emitWebhookEvent(trx, tenancy.id, 'team.created', toTeamDto(row, 'server'));
  if (creatorUserId) {
    await addMember(trx, tenancy, config, { teamId: row.id, userId: creatorUserId, role: 'creator' });
    await setSelectedTeam(trx, tenancy.id, creatorUserId, row.id);
  }
  return row;
}

// ─── Teams ────────────────────────────────────────────────────────────────────────────────────

/** Clients list their own teams; server callers all teams, or one user's with user_id. */
export async function listTeams(deps: Deps, auth: AuthContext, input: z.infer<typeof teamListQuerySchema>) {
  let userId: string | null = null;
  if (auth.type === 'client') {
    userId = await clientOwnUserId(deps, auth, input.user_id);
  } else if (input.user_id !== undefined) {
    userId = await resolveExistingUserId(deps, auth, input.user_id);
  }
  // A client's own teams come from the primary: the SDK lists them again right after the client
  // creates or joins one (read-your-writes). Server and admin listings, all of a tenancy's teams,
  // tolerate the replica's lag.
  const rows = await q.listTeams(auth.type === 'client' ? deps.db : deps.readDb, auth.tenancy.id, userId);
  return rows.map((row) => toTeamDto(row, auth.type));
}

export async function getTeam(deps: Deps, auth: AuthContext, teamId: string) {
  await authorizeTeamAction(deps, auth, teamId, null);
  const row = await q.findTeam(deps.db, auth.tenancy.id, teamId);
  if (!row) throw new KnownErrors.TeamNotFound(teamId);
  return toTeamDto(row, auth.type);
}

export async function createTeam(deps: Deps, auth: AuthContext, input: z.infer<typeof teamCreateSchema>) {
  const config = auth.project.config;
  let creatorUserId: string | null = null;
  if (auth.type === 'client') {
    if (!config.client_team_creation_enabled) throw new KnownErrors.InsufficientAccessType('client', ['server', 'admin']);
    refuseServerOnlyFields(auth, input);
    creatorUserId = await clientOwnUserId(deps, auth, input.creator_user_id);
  } else if (input.creator_user_id !== undefined) {
    creatorUserId = await resolveExistingUserId(deps, auth, input.creator_user_id);
  }
  assertMetadataWithinQuota(deps, { client: input.client_metadata, clientReadOnly: input.client_read_only_metadata, server: input.server_metadata });
  try {
    const row = await deps.db.transaction().execute((trx) => insertTeamWithCreator(trx, auth.tenancy, config, input, creatorUserId));
    return toTeamDto(row, auth.type);
  } catch (error) {
    // The creator was deleted while the team was being made.
    if (isForeignKeyViolation(error, 'user_id')) throw new KnownErrors.UserNotFound();
    throw error;
  }
}

export async function updateTeam(deps: Deps, auth: AuthContext, teamId: string, input: Omit<z.infer<typeof teamUpdateSchema>, 'team_id'>) {
  refuseServerOnlyFields(auth, input);
  await authorizeTeamAction(deps, auth, teamId, '$update_team');
  const metadata = { client: input.client_metadata, clientReadOnly: input.client_read_only_metadata, server: input.server_metadata };
  if (metadata.client !== undefined || metadata.clientReadOnly !== undefined || metadata.server !== undefined) {
    const current = await q.findTeam(deps.db, auth.tenancy.id, teamId);
    if (!current) throw new KnownErrors.TeamNotFound(teamId);
    // Read, then written: concurrent writes of different fields can overshoot the cap at most by
    // what one of them added.
    assertMetadataWithinQuota(deps, metadata, {
      client: current.client_metadata,
      clientReadOnly: current.client_read_only_metadata,
      server: current.server_metadata,
    });
  }
  const row = await deps.db.transaction().execute(async (trx) => {
    const updated = await q.updateTeam(trx, auth.tenancy.id, teamId, {
      ...(input.display_name !== undefined ? { display_name: input.display_name } : {}),
      ...(input.profile_image_url !== undefined ? { profile_image_url: input.profile_image_url } : {}),
      ...(input.client_metadata !== undefined ? { client_metadata: jsonOrNull(input.client_metadata) } : {}),
      ...(input.client_read_only_metadata !== undefined ? { client_read_only_metadata: jsonOrNull(input.client_read_only_metadata) } : {}),
      ...(input.server_metadata !== undefined ? { server_metadata: jsonOrNull(input.server_metadata) } : {}),
    });
    if (!updated) throw new KnownErrors.TeamNotFound(teamId);
    await emitWebhookEvent(trx, auth.tenancy.id, 'team.updated', toTeamDto(updated, 'server'));
    return updated;
  });
  return toTeamDto(row, auth.type);
}

/**
 * Deletes a team with everything that hangs off it, in one transaction: pending invitation codes
 * (they would otherwise outlive their team), members' selection of it, then the team itself
 * (memberships, grants, invitations and team API keys follow by ON DELETE CASCADE).
 */
export async function deleteTeam(deps: Deps, auth: AuthContext, teamId: string): Promise<void> {
  await authorizeTeamAction(deps, auth, teamId, '$delete_team');
  await deps.db.transaction().execute(async (trx) => {
    const team = await q.lockTeam(trx, auth.tenancy.id, teamId);
    if (!team) throw new KnownErrors.TeamNotFound(teamId);
    // An internal-project team that owns projects is how its members administer them.
    if (auth.project.id === INTERNAL_PROJECT_ID && (await q.ownsProjects(trx, teamId))) {
      throw new KnownErrors.SchemaError('This team owns projects. Transfer them to another team (POST /internal/projects/transfer) before deleting it.');
    }
    await deleteCodes(trx, auth.tenancy, await listInvitationIdsOfTeam(trx, auth.tenancy.id, teamId));
    await q.clearSelectedTeam(trx, auth.tenancy.id, teamId, null);
    await q.deleteTeam(trx, auth.tenancy.id, teamId);
    await emitWebhookEvent(trx, auth.tenancy.id, 'team.deleted', { id: teamId });
  });
}

// ─── Memberships ──────────────────────────────────────────────────────────────────────────────

/** Server side: adds a member directly (clients join through invitations). */
export async function addTeamMember(deps: Deps, auth: AuthContext, teamId: string, userIdParam: string) {
  const userId = resolveUserId(auth, userIdParam);
  try {
    await deps.db.transaction().execute(async (trx) => {
      if (!(await q.findTeam(trx, auth.tenancy.id, teamId))) throw new KnownErrors.TeamNotFound(teamId);
      if (!(await findUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
      if (!(await addMember(trx, auth.tenancy, auth.project.config, { teamId, userId, role: 'member' })))
        throw new KnownErrors.TeamMembershipAlreadyExists(teamId, userId);
    });
  } catch (error) {
    // Team or user deleted by a concurrent request after the checks above.
    if (isForeignKeyViolation(error, 'user_id')) throw new KnownErrors.UserNotFound();
    if (isForeignKeyViolation(error)) throw new KnownErrors.TeamNotFound(teamId);
    throw error;
  }
  return { team_id: teamId, user_id: userId };
}

/**
 * Removes a member. Anyone may leave a team they are in; removing someone else takes
 * $remove_members on the client. The member's team permissions go with the membership.
 */
export async function removeTeamMember(deps: Deps, auth: AuthContext, teamId: string, userIdParam: string): Promise<void> {
  const userId = resolveMe(auth, userIdParam);
  const self = isOwnUser(auth, userId);
  await authorizeTeamAction(deps, auth, teamId, self ? null : '$remove_members');
  await deps.db.transaction().execute((trx) => deleteMembership(trx, auth.tenancy, teamId, userId));
}

/**
 * Ends a membership inside the caller's transaction. In the internal project a team that owns
 * projects keeps at least one member (LAST_PROJECT_OWNER): the team row is locked first, so two
 * owners removing each other at once cannot both succeed.
 */
export async function deleteMembership(trx: Executor, tenancy: Tenancy, teamId: string, userId: string): Promise<void> {
  if (tenancy.projectId === INTERNAL_PROJECT_ID) {
    await q.lockTeam(trx, tenancy.id, teamId);
    if ((await q.countTeamMembers(trx, tenancy.id, teamId)) <= 1 && (await q.ownsProjects(trx, teamId)) && (await isMember(trx, tenancy.id, teamId, userId)))
      throw new KnownErrors.LastProjectOwner(teamId, userId);
  }
  if (!(await q.deleteTeamMember(trx, tenancy.id, teamId, userId))) throw new KnownErrors.TeamMembershipNotFound(teamId, userId);
  await q.clearSelectedTeam(trx, tenancy.id, teamId, userId);
  await emitWebhookEvent(trx, tenancy.id, 'team_membership.deleted', { team_id: teamId, user_id: userId });
}

async function isMember(db: Executor, tenancyId: string, teamId: string, userId: string): Promise<boolean> {
  return (await q.findMemberProfile(db, tenancyId, teamId, userId)) !== undefined;
}

// ─── Member profiles ──────────────────────────────────────────────────────────────────────────

/**
 * Clients read their own profiles freely, and other members' with $read_members in that team
 * (so listing a team's members needs team_id); server callers read any.
 */
export async function listMemberProfiles(deps: Deps, auth: AuthContext, input: z.infer<typeof memberProfileListQuerySchema>) {
  if (!input.team_id && !input.user_id)
    throw new KnownErrors.SchemaError('Give team_id, user_id or both.', { issues: [{ path: 'team_id', message: 'team_id or user_id is required' }] });
  const userId = input.user_id ? resolveMe(auth, input.user_id) : null;
  if (auth.type === 'client') {
    const self = userId !== null && isOwnUser(auth, userId);
    if (!self) {
      if (!input.team_id)
        throw new KnownErrors.SchemaError("team_id is required to list other users' member profiles.", {
          issues: [{ path: 'team_id', message: 'is a required field' }],
        });
      await authorizeTeamAction(deps, auth, input.team_id, '$read_members');
    } else {
      await liveSessionUserId(deps, auth);
    }
  } else if (input.team_id) {
    await authorizeTeamAction(deps, auth, input.team_id, null);
  }
  const rows = await q.listMemberProfiles(deps.db, auth.tenancy.id, { teamId: input.team_id ?? null, userId });
  return rows.map((row) => toMemberProfileDto(row, auth.type));
}

export async function getMemberProfile(deps: Deps, auth: AuthContext, teamId: string, userIdParam: string) {
  const userId = resolveMe(auth, userIdParam);
  await authorizeTeamAction(deps, auth, teamId, isOwnUser(auth, userId) ? null : '$read_members');
  const row = await q.findMemberProfile(deps.db, auth.tenancy.id, teamId, userId);
  if (!row) throw new KnownErrors.TeamMembershipNotFound(teamId, userId);
  return toMemberProfileDto(row, auth.type);
}

/** Members edit their own profile; editing someone else's takes server access. */
export async function updateMemberProfile(deps: Deps, auth: AuthContext, input: z.infer<typeof memberProfileUpdateSchema>) {
  const userId = resolveMe(auth, input.user_id);
  if (auth.type === 'client' && !isOwnUser(auth, userId)) {
    if (!auth.user) throw new KnownErrors.UserAuthenticationRequired();
    throw new KnownErrors.InsufficientAccessType('client', ['server', 'admin']);
  }
  await authorizeTeamAction(deps, auth, input.team_id, null);
  const patch = {
    ...(input.display_name !== undefined ? { display_name: input.display_name } : {}),
    ...(input.profile_image_url !== undefined ? { profile_image_url: input.profile_image_url } : {}),
  };
  if (!(await q.updateMemberProfile(deps.db, auth.tenancy.id, input.team_id, userId, patch)))
    throw new KnownErrors.TeamMembershipNotFound(input.team_id, userId);
  const row = await q.findMemberProfile(deps.db, auth.tenancy.id, input.team_id, userId);
  if (!row) throw new KnownErrors.TeamMembershipNotFound(input.team_id, userId);
  return toMemberProfileDto(row, auth.type);
}
