import { type RawBuilder, sql } from 'kysely';
import type { PermissionDefinitionRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { PERMISSION_DEFINITION_COLUMNS, qualified } from '../../db/columns.js';

export type PermissionScope = 'team' | 'project';

export interface DefinitionWithChildren extends PermissionDefinitionRow {
  contained_permission_ids: string[];
}

/** `(VALUES ($1::text), ($2::text), …)`: a list parameter that pg and PGlite bind the same way. */
function textValues(values: readonly string[]): RawBuilder<unknown> {
  return sql`(VALUES ${sql.join(values.map((v) => sql`(${v}::text)`))})`;
}

/**
 * Serializes changes to a tenancy's permission graph until the transaction ends, so two
 * concurrent edits cannot each pass the cycle check and together close a cycle. A row lock on the
 * tenancy, not an advisory lock (portable to distributed engines, ARCHITECTURE.md), and FOR NO KEY
 * UPDATE, which foreign-key checks (FOR KEY SHARE) do not wait on: sign-ups and other writes into
 * the tenancy go on while its permissions are edited.
 */
export async function lockPermissionGraph(db: Executor, tenancyId: string): Promise<void> {
  await db.selectFrom('tenancies').select('id').where('id', '=', tenancyId).forNoKeyUpdate().execute();
}

/** Definitions (of one scope, or of the given ids) with their contained ids, in one query. */
export async function listDefinitions(
  db: Executor,
  tenancyId: string,
  filter: { scope?: PermissionScope; ids?: readonly string[] },
): Promise<DefinitionWithChildren[]> {
  if (filter.ids && filter.ids.length === 0) return [];
  let query = db
    .selectFrom('permission_definitions as d')
    .select(qualified('d', PERMISSION_DEFINITION_COLUMNS))
    .select(
      sql<
        string[]
      >`coalesce((SELECT array_agg(i.child_id ORDER BY i.child_id) FROM permission_inclusions i WHERE i.tenancy_id = d.tenancy_id AND i.parent_id = d.id), '{}'::text[])`.as(
        'contained_permission_ids',
      ),
    )
    .where('d.tenancy_id', '=', tenancyId);
  if (filter.scope) query = query.where('d.scope', '=', filter.scope);
  if (filter.ids) query = query.where('d.id', 'in', filter.ids);
  return query.orderBy('d.id').execute();
}

export async function findDefinition(db: Executor, tenancyId: string, id: string): Promise<DefinitionWithChildren | undefined> {
  const [row] = await listDefinitions(db, tenancyId, { ids: [id] });
  return row;
}

export async function insertDefinition(
  db: Executor,
  row: { tenancy_id: string; id: string; scope: PermissionScope; description: string | null },
): Promise<void> {
  await db.insertInto('permission_definitions').values(row).execute();
}

/** Renames (the containing edges follow by ON UPDATE CASCADE) and/or changes the description. */
export async function updateDefinition(db: Executor, tenancyId: string, id: string, patch: { id?: string; description?: string | null }): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await db.updateTable('permission_definitions').set(patch).where('tenancy_id', '=', tenancyId).where('id', '=', id).execute();
}

export async function deleteDefinition(db: Executor, tenancyId: string, id: string): Promise<void> {
  await db.deleteFrom('permission_definitions').where('tenancy_id', '=', tenancyId).where('id', '=', id).execute();
}

export async function replaceInclusions(db: Executor, tenancyId: string, parentId: string, childIds: readonly string[]): Promise<void> {
  await db.deleteFrom('permission_inclusions').where('tenancy_id', '=', tenancyId).where('parent_id', '=', parentId).execute();
  if (childIds.length === 0) return;
  await db
    .insertInto('permission_inclusions')
    .values(childIds.map((child_id) => ({ tenancy_id: tenancyId, parent_id: parentId, child_id })))
    .execute();
}

/**
 * Points every reference to a permission id (edges that contain it, grants of it) at a new id, or
 * drops them when `to` is null. child_id and grants have no foreign key (system permissions have
 * no row), so this is how they follow a rename or a delete.
 */
export async function retargetReferences(db: Executor, tenancyId: string, scope: PermissionScope, from: string, to: string | null): Promise<void> {
  const grants = scope === 'team' ? 'team_permission_grants' : 'project_permission_grants';
  if (to === null) {
    await db.deleteFrom('permission_inclusions').where('tenancy_id', '=', tenancyId).where('child_id', '=', from).execute();
    await db.deleteFrom(grants).where('tenancy_id', '=', tenancyId).where('permission_id', '=', from).execute();
    return;
  }
  await db.updateTable('permission_inclusions').set({ child_id: to }).where('tenancy_id', '=', tenancyId).where('child_id', '=', from).execute();
  await db.updateTable(grants).set({ permission_id: to }).where('tenancy_id', '=', tenancyId).where('permission_id', '=', from).execute();
}

/**
 * The first of `childIds` from which `parentId` can already be reached by following containment,
 * i.e. the child that would close a cycle if `parentId` contained it; null when none would. One
 * recursive query; UNION (not UNION ALL) visits each (origin, node) pair once, so it ends even on
 * a graph that somehow holds a cycle.
 */
export async function findCycleThrough(db: Executor, tenancyId: string, parentId: string, childIds: readonly string[]): Promise<string | null> {
  if (childIds.length === 0) return null;
  const { rows } = await sql<{ origin: string }>`
    WITH RECURSIVE reach(origin, id) AS (
      SELECT v.id, v.id FROM ${textValues(childIds)} AS v(id)
      UNION
      SELECT r.origin, i.child_id
      FROM reach r
      JOIN permission_inclusions i ON i.tenancy_id = ${tenancyId} AND i.parent_id = r.id
    )
    SELECT origin FROM reach WHERE id = ${parentId} ORDER BY origin LIMIT 1
  `.execute(db);
  return rows[0]?.origin ?? null;
}

export interface TeamPermissionRow {
  team_id: string;
  user_id: string;
  id: string;
}

export interface ProjectPermissionRow {
  user_id: string;
  id: string;
}

/**
 * The team permissions users hold, with everything they contain when `recursive`: one SQL round
 * trip whatever the nesting depth. The closure starts from the direct grants and walks the
 * (tenancy_id, parent_id) primary key of permission_inclusions one level per iteration.
 */
export async function listTeamPermissions(
  db: Executor,
  tenancyId: string,
  filter: { teamId: string | null; userId: string | null; permissionId: string | null; recursive: boolean },
): Promise<TeamPermissionRow[]> {
  const grantFilter = sql.join(
    [
      sql`g.tenancy_id = ${tenancyId}`,
      ...(filter.teamId ? [sql`g.team_id = ${filter.teamId}`] : []),
      ...(filter.userId ? [sql`g.user_id = ${filter.userId}`] : []),
    ],
    sql` AND `,
  );
  const idFilter = filter.permissionId ? sql`WHERE c.id = ${filter.permissionId}` : sql``;
  const recursion = filter.recursive
    ? sql`UNION
      SELECT c.team_id, c.user_id, i.child_id
      FROM closure c
      JOIN permission_inclusions i ON i.tenancy_id = ${tenancyId} AND i.parent_id = c.id`
    : sql``;
  const { rows } = await sql<TeamPermissionRow>`
    WITH RECURSIVE closure(team_id, user_id, id) AS (
      SELECT g.team_id, g.user_id, g.permission_id FROM team_permission_grants g WHERE ${grantFilter}
      ${recursion}
    )
    SELECT c.team_id, c.user_id, c.id FROM closure c ${idFilter}
    ORDER BY c.team_id, c.user_id, c.id
  `.execute(db);
  return rows;
}

/** The project-scope counterpart of listTeamPermissions: one round trip at any depth. */
export async function listProjectPermissions(
  db: Executor,
  tenancyId: string,
  filter: { userId: string | null; permissionId: string | null; recursive: boolean },
): Promise<ProjectPermissionRow[]> {
  const userFilter = filter.userId ? sql`AND g.user_id = ${filter.userId}` : sql``;
  const idFilter = filter.permissionId ? sql`WHERE c.id = ${filter.permissionId}` : sql``;
  const recursion = filter.recursive
    ? sql`UNION
      SELECT c.user_id, i.child_id
      FROM closure c
      JOIN permission_inclusions i ON i.tenancy_id = ${tenancyId} AND i.parent_id = c.id`
    : sql``;
  const { rows } = await sql<ProjectPermissionRow>`
    WITH RECURSIVE closure(user_id, id) AS (
      SELECT g.user_id, g.permission_id FROM project_permission_grants g WHERE g.tenancy_id = ${tenancyId} ${userFilter}
      ${recursion}
    )
    SELECT c.user_id, c.id FROM closure c ${idFilter}
    ORDER BY c.user_id, c.id
  `.execute(db);
  return rows;
}

export interface TeamAccess {
  session_live: boolean;
  is_member: boolean;
  has_permission: boolean;
}

/**
 * Everything a client-side team action needs to know, in one round trip: is the caller's session
 * still live, are they a member, and do they hold `permissionId` (recursively) in the team.
 */
export async function findTeamAccess(
  db: Executor,
  tenancyId: string,
  teamId: string,
  userId: string,
  sessionId: string,
  permissionId: string | null,
): Promise<TeamAccess> {
  const { rows } = await sql<TeamAccess>`
    WITH RECURSIVE closure(id) AS (
      SELECT g.permission_id FROM team_permission_grants g
      WHERE g.tenancy_id = ${tenancyId} AND g.team_id = ${teamId} AND g.user_id = ${userId}
      UNION
      SELECT i.child_id FROM closure c
      JOIN permission_inclusions i ON i.tenancy_id = ${tenancyId} AND i.parent_id = c.id
    )
    SELECT
      EXISTS (SELECT 1 FROM sessions s WHERE s.tenancy_id = ${tenancyId} AND s.id = ${sessionId} AND s.user_id = ${userId}) AS session_live,
      EXISTS (SELECT 1 FROM team_members m WHERE m.tenancy_id = ${tenancyId} AND m.team_id = ${teamId} AND m.user_id = ${userId}) AS is_member,
      ${permissionId === null ? sql`true` : sql`EXISTS (SELECT 1 FROM closure WHERE id = ${permissionId})`} AS has_permission
  `.execute(db);
  return rows[0]!;
}

export async function insertTeamGrant(db: Executor, grant: { tenancy_id: string; team_id: string; user_id: string; permission_id: string }): Promise<void> {
  await db
    .insertInto('team_permission_grants')
    .values(grant)
    .onConflict((oc) => oc.columns(['tenancy_id', 'team_id', 'user_id', 'permission_id']).doNothing())
    .execute();
}

export async function deleteTeamGrant(db: Executor, tenancyId: string, teamId: string, userId: string, permissionId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('team_permission_grants')
    .where((eb) => eb.and({ tenancy_id: tenancyId, team_id: teamId, user_id: userId, permission_id: permissionId }))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertProjectGrant(db: Executor, grant: { tenancy_id: string; user_id: string; permission_id: string }): Promise<void> {
  await db
    .insertInto('project_permission_grants')
    .values(grant)
    .onConflict((oc) => oc.columns(['tenancy_id', 'user_id', 'permission_id']).doNothing())
    .execute();
}

export async function deleteProjectGrant(db: Executor, tenancyId: string, userId: string, permissionId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('project_permission_grants')
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId, permission_id: permissionId }))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Grants the default permissions of an event (team creator, team member, new user) in one
 * statement. Ids that are no longer defined in that scope are skipped: the project config may
 * still name a definition that was deleted since, and that must not break sign-up.
 */
export async function grantDefaults(
  db: Executor,
  tenancyId: string,
  target: { scope: 'team'; teamId: string; userId: string; systemIds: readonly string[] } | { scope: 'project'; userId: string },
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  const defined = sql`EXISTS (SELECT 1 FROM permission_definitions d WHERE d.tenancy_id = ${tenancyId} AND d.id = v.id AND d.scope = ${target.scope})`;
  if (target.scope === 'team') {
    const system = target.systemIds.length ? sql`v.id IN (${sql.join(target.systemIds.map((id) => sql`${id}::text`))}) OR ` : sql``;
    await sql`
      INSERT INTO team_permission_grants (tenancy_id, team_id, user_id, permission_id)
      SELECT ${tenancyId}::uuid, ${target.teamId}::uuid, ${target.userId}::uuid, v.id FROM ${textValues(ids)} AS v(id)
      WHERE ${system}${defined}
      ON CONFLICT DO NOTHING
    `.execute(db);
  } else {
    await sql`
      INSERT INTO project_permission_grants (tenancy_id, user_id, permission_id)
      SELECT ${tenancyId}::uuid, ${target.userId}::uuid, v.id FROM ${textValues(ids)} AS v(id)
      WHERE ${defined}
      ON CONFLICT DO NOTHING
    `.execute(db);
  }
}
