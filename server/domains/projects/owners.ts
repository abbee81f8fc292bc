/**
 * Co-owners of a project: the members of its owner team, a team of the internal project. An owner
 * lists them, invites someone by email (a team invitation of the internal project, sent through
 * the internal project's email flow, whose link opens the console's own acceptance page) and
 * removes an owner; the last one cannot be removed (LAST_PROJECT_OWNER). Every call first checks
 * that the caller owns the project, and answers PROJECT_NOT_FOUND otherwise, so nobody learns
 * whether a project they do not own exists.
 */
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../access/context.js';
import type { Executor } from '../../db/executor.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { projectOwnerListSchema } from '../../../contract/schemas/projects.js';
import { findTeam } from '../teams/queries.js';
import { deleteMembership } from '../teams/service.js';
import { issueInvitation, withdrawInvitation } from '../team-invitations/service.js';
import { listPendingInvitations } from '../team-invitations/queries.js';
import * as q from './queries.js';
import { requireInternalOwner } from './service.js';

/** The console's page that accepts an owner invitation (admin-web/routes/owner-invitation.tsx). */
export const OWNER_INVITATION_PATH = '/owner-invitation';

/** The owner team of a project the caller owns; PROJECT_NOT_FOUND for any other project. */
async function ownedTeamId(db: Executor, auth: AuthContext, projectId: string): Promise<string> {
  const userId = requireInternalOwner(auth);
  const project = await q.findProject(db, projectId);
  if (!project?.owner_team_id || !(await q.isTeamMember(db, auth.tenancy.id, project.owner_team_id, userId))) throw new KnownErrors.ProjectNotFound(projectId);
  return project.owner_team_id;
}

export async function listOwners(deps: Deps, auth: AuthContext, projectId: string): Promise<z.infer<typeof projectOwnerListSchema>> {
  const teamId = await ownedTeamId(deps.db, auth, projectId);
  const [rows, team, count] = await Promise.all([
    q.listOwners(deps.db, auth.tenancy.id, teamId),
    findTeam(deps.db, auth.tenancy.id, teamId),
    q.countProjectsOwnedBy(deps.db, teamId),
  ]);
  if (!team) throw new KnownErrors.ProjectNotFound(projectId);
  return {
    items: rows.map((row) => ({
      user_id: row.user_id,
      display_name: row.display_name,
      primary_email: row.primary_email,
      is_current_user: row.user_id === auth.user?.sub,
      joined_at_millis: row.joined_at.getTime(),
    })),
    is_paginated: false,
    owner_team: { id: team.id, display_name: team.display_name, owned_project_count: count },
  };
}

/**
 * Emails an invitation to join the owner team. The link is the console's acceptance page on this
 * server's public URL (LATCH_BASE_URL), never a URL the caller chose: it carries a code that makes
 * its holder an owner, so it must not be sendable to another site.
 */
export async function inviteOwner(deps: Deps, auth: AuthContext, projectId: string, email: string, ip: string | null): Promise<{ id: string }> {
  return deps.db.transaction().execute(async (trx) => {
    const teamId = await ownedTeamId(trx, auth, projectId);
    return issueInvitation(trx, deps, auth, { team_id: teamId, email, callback_url: `${deps.baseUrl()}${OWNER_INVITATION_PATH}` }, ip);
  });
}

export async function listOwnerInvitations(deps: Deps, auth: AuthContext, projectId: string) {
  const teamId = await ownedTeamId(deps.db, auth, projectId);
  const rows = await listPendingInvitations(deps.db, auth.tenancy.id, teamId);
  return rows.map((row) => ({ id: row.id, recipient_email: row.recipient_email, expires_at_millis: row.expires_at.getTime() }));
}

export async function revokeOwnerInvitation(deps: Deps, auth: AuthContext, projectId: string, invitationId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const teamId = await ownedTeamId(trx, auth, projectId);
    if (!(await withdrawInvitation(trx, auth, invitationId, teamId))) throw new KnownErrors.VerificationCodeNotFound();
  });
}

/** Removes an owner (themselves included), unless they are the last one. */
export async function removeOwner(deps: Deps, auth: AuthContext, projectId: string, userId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const teamId = await ownedTeamId(trx, auth, projectId);
    await deleteMembership(trx, auth.tenancy, teamId, userId);
  });
}
