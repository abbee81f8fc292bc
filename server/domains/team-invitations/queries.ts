import { sql } from 'kysely';
import type { TeamInvitationRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { TEAM_INVITATION_COLUMNS } from '../../db/columns.js';

export async function insertInvitation(
  db: Executor,
  row: { tenancy_id: string; id: string; team_id: string; recipient_email: string; expires_at: Date },
): Promise<void> {
  await db.insertInto('team_invitations').values(row).execute();
}

export async function findInvitation(db: Executor, tenancyId: string, id: string): Promise<TeamInvitationRow | undefined> {
  return db.selectFrom('team_invitations').select(TEAM_INVITATION_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
}

/** A team's invitations that can still be accepted, oldest first. */
export async function listPendingInvitations(db: Executor, tenancyId: string, teamId: string): Promise<TeamInvitationRow[]> {
  return db
    .selectFrom('team_invitations')
    .select(TEAM_INVITATION_COLUMNS)
    .where((eb) => eb.and({ tenancy_id: tenancyId, team_id: teamId }))
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listInvitationIdsOfTeam(db: Executor, tenancyId: string, teamId: string): Promise<string[]> {
  const rows = await db.selectFrom('team_invitations').select('id').where('tenancy_id', '=', tenancyId).where('team_id', '=', teamId).execute();
  return rows.map((row) => row.id);
}

export async function deleteInvitation(db: Executor, tenancyId: string, id: string, teamId: string | null): Promise<boolean> {
  let query = db.deleteFrom('team_invitations').where('tenancy_id', '=', tenancyId).where('id', '=', id);
  if (teamId) query = query.where('team_id', '=', teamId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
