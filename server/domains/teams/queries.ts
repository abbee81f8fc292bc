import type { Executor } from '../projects/queries.js';

/** Minimal team writes the core needs (personal teams, project owner teams); the teams domain grows here. */
export async function insertTeam(db: Executor, team: { tenancy_id: string; id: string; display_name: string }): Promise<void> {
  await db.insertInto('teams').values(team).execute();
}

export async function insertTeamMember(db: Executor, member: { tenancy_id: string; team_id: string; user_id: string }): Promise<void> {
  await db.insertInto('team_members').values(member).onConflict((oc) => oc.columns(['tenancy_id', 'team_id', 'user_id']).doNothing()).execute();
}

export async function findTeamIdsOfUser(db: Executor, tenancyId: string, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('team_members').select('team_id').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).execute();
  return rows.map((r) => r.team_id);
}
