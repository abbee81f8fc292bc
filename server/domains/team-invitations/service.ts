import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { isTrustedRedirectUrl } from '../../../contract/validation/urls.js';
import { queueEmail } from '../emails/service.js';
import type { ProjectConfig } from '../../../contract/config/project-config.js';
import type { Executor } from '../../db/executor.js';
import { authorizeTeamAction, liveSessionUserId } from '../../access/policy.js';
import { findTeam, lockTeamForShare } from '../teams/queries.js';
import { addMember } from '../teams/service.js';
import { assertTrustedCallbackUrl, checkCode, consumeCode, createCode, deleteCodes, limitCodeChecks, linkWithCode } from '../verification/service.js';
import * as q from './queries.js';
import { toInvitationDto } from './dto.js';
import type { sendCodeSchema } from '../../../contract/schemas/team-invitations.js';

/** The verification_codes purpose of team invitations. */
export const TEAM_INVITATION_PURPOSE = 'team_invitation';
/** An invitation can be accepted for a week. */
export const TEAM_INVITATION_TTL_MILLIS = 7 * 24 * 60 * 60 * 1000;

interface InvitationData {
  team_id: string;
}

/**
 * Whether the emailed link may point at this URL: the shared redirect-URL matcher (a trusted
 * domain of the project, or localhost while allow_localhost is on). Without this a client could
 * make the project's own invitation email carry a link to any site.
 */
export function isTrustedCallbackUrl(config: ProjectConfig, callbackUrl: string): boolean {
  return isTrustedRedirectUrl(callbackUrl, { domains: config.domains, allowLocalhost: config.allow_localhost });
}

/**
 * Invites someone by email: an invitation row the team can list and withdraw, a single-use code
 * (stored hashed, under the invitation's id) and the email carrying the link, all in one
 * transaction. Clients need $invite_members in the team.
 */
export async function sendInvitation(deps: Deps, auth: AuthContext, input: z.infer<typeof sendCodeSchema>, ip: string | null = null) {
  assertTrustedCallbackUrl(auth.project, input.callback_url);
  await authorizeTeamAction(deps, auth, input.team_id, '$invite_members');
  return deps.db.transaction().execute((trx) => issueInvitation(trx, deps, auth, input, ip));
}

/**
 * The invitation row, its code and its email, inside the caller's transaction (the console's
 * co-owner invitations are team invitations of the internal project too). The caller has checked
 * who may invite and that the callback URL may be linked to.
 */
export async function issueInvitation(
  trx: Executor,
  deps: Deps,
  auth: AuthContext,
  input: { team_id: string; email: string; callback_url: string },
  ip: string | null,
): Promise<{ id: string }> {
  const id = randomUUID();
  // Locked (key share) so the team cannot be deleted under the invitation being written.
  const team = await lockTeamForShare(trx, auth.tenancy.id, input.team_id);
  if (!team) throw new KnownErrors.TeamNotFound(input.team_id);
  const data: InvitationData = { team_id: team.id };
  const issued = await createCode(trx, auth.tenancy, TEAM_INVITATION_PURPOSE, data, TEAM_INVITATION_TTL_MILLIS, { id });
  await q.insertInvitation(trx, { tenancy_id: auth.tenancy.id, id, team_id: team.id, recipient_email: input.email, expires_at: issued.expiresAt });
  const link = linkWithCode(input.callback_url, issued.code);
  await queueEmail(trx, deps, auth, input.email, { type: 'team-invitation', link, teamDisplayName: team.display_name, expiresAt: issued.expiresAt }, { ip });
  return { id };
}

/** Withdraws a team's invitation and its code inside the caller's transaction; false when there is none. */
export async function withdrawInvitation(trx: Executor, auth: AuthContext, invitationId: string, teamId: string): Promise<boolean> {
  if (!(await q.deleteInvitation(trx, auth.tenancy.id, invitationId, teamId))) return false;
  await deleteCodes(trx, auth.tenancy, [invitationId]);
  return true;
}

/** The invitation behind a valid code; a withdrawn invitation's code reads as not found. */
async function invitationOf(trx: Executor, auth: AuthContext, verifiedId: string) {
  const invitation = await q.findInvitation(trx, auth.tenancy.id, verifiedId);
  if (!invitation) throw new KnownErrors.VerificationCodeNotFound();
  const team = await findTeam(trx, auth.tenancy.id, invitation.team_id);
  if (!team) throw new KnownErrors.VerificationCodeNotFound();
  return { invitation, team };
}

/**
 * Accepts for the signed-in user: uses the code up and joins the team with
 * team_member_default_permissions. The code is a bearer secret, like the link it came in; a user
 * who already is a member just uses it up.
 */
export async function acceptInvitation(deps: Deps, auth: AuthContext, code: string, ip: string | null) {
  const userId = await liveSessionUserId(deps, auth);
  await limitCodeChecks(deps, auth.tenancy, ip);
  return deps.db.transaction().execute(async (trx) => {
    const verified = await consumeCode<InvitationData>(trx, auth.tenancy, TEAM_INVITATION_PURPOSE, code);
    const { invitation } = await invitationOf(trx, auth, verified.id);
    await addMember(trx, auth.tenancy, auth.project.config, { teamId: invitation.team_id, userId, role: 'member' });
    await q.deleteInvitation(trx, auth.tenancy.id, invitation.id, null);
    return { team_id: invitation.team_id };
  });
}

/** Checks a code without using it (counts as an attempt). */
export async function checkInvitationCode(deps: Deps, auth: AuthContext, code: string, ip: string | null) {
  await limitCodeChecks(deps, auth.tenancy, ip);
  await deps.db.transaction().execute(async (trx) => {
    const verified = await checkCode<InvitationData>(trx, auth.tenancy, TEAM_INVITATION_PURPOSE, code);
    await invitationOf(trx, auth, verified.id);
  });
  return { is_code_valid: true as const };
}

/** What the invitation page shows before accepting (counts as an attempt). */
export async function invitationDetails(deps: Deps, auth: AuthContext, code: string, ip: string | null) {
  await limitCodeChecks(deps, auth.tenancy, ip);
  return deps.db.transaction().execute(async (trx) => {
    const verified = await checkCode<InvitationData>(trx, auth.tenancy, TEAM_INVITATION_PURPOSE, code);
    const { team } = await invitationOf(trx, auth, verified.id);
    return { team_id: team.id, team_display_name: team.display_name };
  });
}

/** Pending invitations of a team; clients need $read_members and $invite_members. */
export async function listInvitations(deps: Deps, auth: AuthContext, teamId: string) {
  await authorizeTeamAction(deps, auth, teamId, '$read_members');
  if (auth.type === 'client') await authorizeTeamAction(deps, auth, teamId, '$invite_members');
  const rows = await q.listPendingInvitations(deps.db, auth.tenancy.id, teamId);
  return rows.map(toInvitationDto);
}

/** Withdraws an invitation: its code stops working at once. Clients need $remove_members. */
export async function revokeInvitation(deps: Deps, auth: AuthContext, invitationId: string, teamId: string): Promise<void> {
  await authorizeTeamAction(deps, auth, teamId, '$remove_members');
  await deps.db.transaction().execute(async (trx) => {
    if (!(await withdrawInvitation(trx, auth, invitationId, teamId))) throw new KnownErrors.VerificationCodeNotFound();
  });
}
