import type { TeamMemberRow, TeamRow, UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { TEAM_COLUMNS, USER_COLUMNS, qualified } from '../../db/columns.js';

/** Minimal team writes the core needs (personal teams, project owner teams); the teams domain grows here. */
export async function insertTeam(
  db: Executor,
  team: {
    tenancy_id: string;
    id: string;
    display_name: string;
    profile_image_url?: string | null;
    client_metadata?: string | null;
    client_read_only_metadata?: string | null;
    server_metadata?: string | null;
  },
): Promise<TeamRow> {
  return db.insertInto('teams').values(team).returningAll().executeTakeFirstOrThrow();
}

/** Adds a member; false when the user already was one (the row is left as it was). */
export async function insertTeamMember(db: Executor, member: { tenancy_id: string; team_id: string; user_id: string }): Promise<boolean> {
  const result = await db
    .insertInto('team_members')
    .values(member)
    .onConflict((oc) => oc.columns(['tenancy_id', 'team_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findTeam(db: Executor, tenancyId: string, teamId: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').select(TEAM_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', teamId).executeTakeFirst();
}

/** Teams in creation order; only the user's teams when a user is given. */
export async function listTeams(db: Executor, tenancyId: string, userId: string | null): Promise<TeamRow[]> {
  let query = db.selectFrom('teams as t').select(qualified('t', TEAM_COLUMNS)).where('t.tenancy_id', '=', tenancyId);
  if (userId) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('team_members as m')
          .select('m.user_id')
          .whereRef('m.tenancy_id', '=', 't.tenancy_id')
          .whereRef('m.team_id', '=', 't.id')
          .where('m.user_id', '=', userId),
      ),
    );
  }
  return query.orderBy('t.created_at').orderBy('t.id').execute();
}

export async function updateTeam(
  db: Executor,
  tenancyId: string,
  teamId: string,
  patch: {
    display_name?: string;
    profile_image_url?: string | null;
    client_metadata?: string | null;
    client_read_only_metadata?: string | null;
    server_metadata?: string | null;
  },
): Promise<TeamRow | undefined> {
  if (Object.keys(patch).length === 0) return findTeam(db, tenancyId, teamId);
  return db.updateTable('teams').set(patch).where('tenancy_id', '=', tenancyId).where('id', '=', teamId).returningAll().executeTakeFirst();
}

/** Deletes the team; members, grants, invitations and team API keys go with it (ON DELETE CASCADE). */
export async function deleteTeam(db: Executor, tenancyId: string, teamId: string): Promise<boolean> {
  const result = await db.deleteFrom('teams').where('tenancy_id', '=', tenancyId).where('id', '=', teamId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Members (one, or all when userId is null) who had this team selected select none
 * (selected_team_id has no foreign key). Only members can have selected it, so the update walks
 * the team's member list instead of every user of the project. Run it before the membership goes.
 */
export async function clearSelectedTeam(db: Executor, tenancyId: string, teamId: string, userId: string | null): Promise<void> {
  let query = db.updateTable('users').set({ selected_team_id: null }).where('tenancy_id', '=', tenancyId).where('selected_team_id', '=', teamId);
  query = userId
    ? query.where('id', '=', userId)
    : query.where('id', 'in', (eb) => eb.selectFrom('team_members').select('user_id').where('tenancy_id', '=', tenancyId).where('team_id', '=', teamId));
  await query.execute();
}

export async function deleteTeamMember(db: Executor, tenancyId: string, teamId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('team_members')
    .where((eb) => eb.and({ tenancy_id: tenancyId, team_id: teamId, user_id: userId }))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface MemberProfileRow {
  member: TeamMemberRow;
  user: UserRow;
}

function memberProfileQuery(db: Executor, tenancyId: string) {
  return db
    .selectFrom('team_members as m')
    .innerJoin('users as u', (join) => join.onRef('u.tenancy_id', '=', 'm.tenancy_id').onRef('u.id', '=', 'm.user_id'))
    .select(qualified('u', USER_COLUMNS))
    .select([
      'm.team_id as m_team_id',
      'm.user_id as m_user_id',
      'm.display_name as m_display_name',
      'm.profile_image_url as m_profile_image_url',
      'm.created_at as m_created_at',
    ])
    .where('m.tenancy_id', '=', tenancyId);
}

type ProfileJoinRow = UserRow & { m_team_id: string; m_user_id: string; m_display_name: string | null; m_profile_image_url: string | null; m_created_at: Date };

function splitProfile(row: ProfileJoinRow): MemberProfileRow {
  const { m_team_id, m_user_id, m_display_name, m_profile_image_url, m_created_at, ...user } = row;
  return {
    member: {
      tenancy_id: user.tenancy_id,
      team_id: m_team_id,
      user_id: m_user_id,
      display_name: m_display_name,
      profile_image_url: m_profile_image_url,
      created_at: m_created_at,
    },
    user,
  };
}

/** Member profiles with their users, by team and/or user, in joining order. */
export async function listMemberProfiles(
  db: Executor,
  tenancyId: string,
  filter: { teamId: string | null; userId: string | null },
): Promise<MemberProfileRow[]> {
  let query = memberProfileQuery(db, tenancyId);
  if (filter.teamId) query = query.where('m.team_id', '=', filter.teamId);
  if (filter.userId) query = query.where('m.user_id', '=', filter.userId);
  const rows = await query.orderBy('m.created_at').orderBy('m.user_id').execute();
  return rows.map((row) => splitProfile(row as ProfileJoinRow));
}

export async function findMemberProfile(db: Executor, tenancyId: string, teamId: string, userId: string): Promise<MemberProfileRow | undefined> {
  const row = await memberProfileQuery(db, tenancyId).where('m.team_id', '=', teamId).where('m.user_id', '=', userId).executeTakeFirst();
  return row ? splitProfile(row as ProfileJoinRow) : undefined;
}

export async function updateMemberProfile(
  db: Executor,
  tenancyId: string,
  teamId: string,
  userId: string,
  patch: { display_name?: string | null; profile_image_url?: string | null },
): Promise<boolean> {
  if (Object.keys(patch).length === 0) return true;
  const result = await db
    .updateTable('team_members')
    .set(patch)
    .where((eb) => eb.and({ tenancy_id: tenancyId, team_id: teamId, user_id: userId }))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Locks the team row for the rest of the transaction (membership changes racing a delete). */
export async function lockTeam(db: Executor, tenancyId: string, teamId: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').select(TEAM_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', teamId).forUpdate().executeTakeFirst();
}

/** Whether an (internal-project) team owns any project. */
export async function ownsProjects(db: Executor, teamId: string): Promise<boolean> {
  const row = await db.selectFrom('projects').select('id').where('owner_team_id', '=', teamId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The team, held against deletion (FOR KEY SHARE) until the transaction ends; other writers are not blocked. */
export async function lockTeamForShare(db: Executor, tenancyId: string, teamId: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').select(TEAM_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', teamId).forKeyShare().executeTakeFirst();
}

/** How many members a team has (cast in SQL: count is a string on pg and a number on PGlite). */
export async function countTeamMembers(db: Executor, tenancyId: string, teamId: string): Promise<number> {
  const row = await db
    .selectFrom('team_members')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
    .where('tenancy_id', '=', tenancyId)
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
