import pg from 'pg';

/**
 * The fast bulk path for the recursive permission check: one team whose members are `members`
 * existing users of the tenancy (the 1 M-user seed), each granted the top of a chain of `depth`
 * team permissions (level 0 contains level 1, …, level depth-1), the way a project gives every
 * member a role that nests narrower ones. The definitions are created over HTTP by the caller
 * (so the API's own cycle checks and rows are used); the team, memberships and grants go straight
 * into PostgreSQL (INSERT … SELECT), then ANALYZE.
 */
export const PERMISSION_DEPTH = 10;
export const permissionLevel = (level: number) => `bench_level_${level}`;

export interface PermissionSeed {
  teamId: string;
  memberIds: string[];
  /** The permission checked: the deepest level, reachable only through all `depth` inclusions. */
  deepest: string;
  seconds: number;
}

export async function seedTeamPermissions(databaseUrl: string, tenancyId: string, members: number): Promise<PermissionSeed> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const {
      rows: [team],
    } = await client.query<{ id: string }>(
      `INSERT INTO teams (tenancy_id, id, display_name) VALUES ($1, gen_random_uuid(), 'Bench permissions team') RETURNING id`,
      [tenancyId],
    );
    const teamId = team!.id;
    const { rowCount } = await client.query(
      `INSERT INTO team_members (tenancy_id, team_id, user_id)
       SELECT $1, $2, u.id FROM users u WHERE u.tenancy_id = $1 ORDER BY u.signed_up_at, u.id LIMIT $3`,
      [tenancyId, teamId, members],
    );
    if (rowCount !== members) throw new Error(`the project has fewer than ${members} users to make team members of (${rowCount})`);
    await client.query(
      `INSERT INTO team_permission_grants (tenancy_id, team_id, user_id, permission_id)
       SELECT tenancy_id, team_id, user_id, $3 FROM team_members WHERE tenancy_id = $1 AND team_id = $2`,
      [tenancyId, teamId, permissionLevel(0)],
    );
    await client.query('COMMIT');
    for (const table of ['teams', 'team_members', 'team_permission_grants', 'permission_definitions', 'permission_inclusions'])
      await client.query(`ANALYZE ${table}`);
    const { rows } = await client.query<{ user_id: string }>('SELECT user_id FROM team_members WHERE tenancy_id = $1 AND team_id = $2', [tenancyId, teamId]);
    return { teamId, memberIds: rows.map((r) => r.user_id), deepest: permissionLevel(PERMISSION_DEPTH - 1), seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
