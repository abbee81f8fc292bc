import { type Transaction, sql } from 'kysely';
import type { Database } from '../../db/kysely.js';
import type { DB, ProjectRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { PROJECT_COLUMNS, qualified } from '../../db/columns.js';

export type KeyColumn = 'publishable_client_key_hash' | 'secret_server_key_hash' | 'super_secret_admin_key_hash';

export interface ProjectForRequest extends ProjectRow {
  tenancy_id: string | null;
  key_valid: boolean;
  /** The live key's expiry (null: none, or no live key): a cached answer must not outlive it. */
  key_expires_at: Date | null;
}

/**
 * One round trip for the request pipeline: the project, its tenancy for the branch, and whether
 * the given key hash is a live key of this project. Internal keys: expiry first, then revocation.
 */
export async function findProjectForRequest(
  db: Executor,
  projectId: string,
  branchId: string,
  key: { column: KeyColumn; hash: string } | null,
): Promise<ProjectForRequest | undefined> {
  const live = key
    ? sql`from api_key_sets k where k.project_id = p.id and ${sql.ref(`k.${key.column}`)} = ${key.hash}
        and (k.expires_at is null or k.expires_at > now()) and k.manually_revoked_at is null`
    : null;
  const keyValid = live ? sql<boolean>`exists (select 1 ${live})` : sql<boolean>`false`;
  const keyExpiresAt = live ? sql<Date | null>`(select min(k.expires_at) ${live})` : sql<Date | null>`null::timestamptz`;
  return db
    .selectFrom('projects as p')
    .leftJoin('tenancies as t', (join) => join.onRef('t.project_id', '=', 'p.id').on('t.branch_id', '=', branchId))
    .select(qualified('p', PROJECT_COLUMNS))
    .select('t.id as tenancy_id')
    .select(keyValid.as('key_valid'))
    .select(keyExpiresAt.as('key_expires_at'))
    .where('p.id', '=', projectId)
    .executeTakeFirst();
}

/**
 * For an owner's admin access token, in one round trip: whether its session (an internal-project
 * session) is still live, and whether its user is in the team that owns the project. `internal`
 * has no owner team, so no token is ever admin of the internal project itself.
 */
export async function findOwnerAccess(
  db: Executor,
  projectId: string,
  internalUserId: string,
  sessionId: string,
): Promise<{ session_live: boolean; is_owner: boolean }> {
  const { rows } = await sql<{ session_live: boolean; is_owner: boolean }>`
    SELECT
      EXISTS (SELECT 1 FROM sessions s JOIN tenancies t ON t.id = s.tenancy_id AND t.project_id = 'internal' AND t.branch_id = 'main'
              WHERE s.id = ${sessionId} AND s.user_id = ${internalUserId}) AS session_live,
      EXISTS (SELECT 1 FROM projects p
              JOIN tenancies t ON t.project_id = 'internal' AND t.branch_id = 'main'
              JOIN team_members m ON m.tenancy_id = t.id AND m.team_id = p.owner_team_id
              WHERE p.id = ${projectId} AND m.user_id = ${internalUserId}) AS is_owner
  `.execute(db);
  return rows[0] ?? { session_live: false, is_owner: false };
}

export async function findProject(db: Executor, projectId: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').select(PROJECT_COLUMNS).where('id', '=', projectId).executeTakeFirst();
}

/** A project's settable fields: what a create gives and an update may change. */
export interface ProjectFields {
  display_name: string;
  description: string | null;
  is_production_mode: boolean;
  logo_url: string | null;
  full_logo_url: string | null;
  owner_team_id: string | null;
  config: Record<string, unknown>;
}

export async function insertProject(db: Executor, project: { id: string } & ProjectFields): Promise<ProjectRow> {
  return db
    .insertInto('projects')
    .values({ ...project, config: JSON.stringify(project.config) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertTenancy(db: Executor, tenancy: { id: string; project_id: string; branch_id: string }): Promise<void> {
  await db
    .insertInto('tenancies')
    .values(tenancy)
    .onConflict((oc) => oc.columns(['project_id', 'branch_id']).doNothing())
    .execute();
}

export async function updateProject(db: Executor, projectId: string, patch: Partial<ProjectFields>): Promise<ProjectRow | undefined> {
  const { config, ...rest } = patch;
  return db
    .updateTable('projects')
    .set({ ...rest, ...(config ? { config: JSON.stringify(config) } : {}), updated_at: sql<Date>`now()` })
    .where('id', '=', projectId)
    .returningAll()
    .executeTakeFirst();
}

/** Locks the project row for a read-modify-write of its config. */
export async function lockProject(trx: Transaction<DB>, projectId: string): Promise<ProjectRow | undefined> {
  return trx.selectFrom('projects').select(PROJECT_COLUMNS).where('id', '=', projectId).forUpdate().executeTakeFirst();
}

export async function deleteProject(db: Executor, projectId: string): Promise<boolean> {
  const result = await db.deleteFrom('projects').where('id', '=', projectId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Projects owned by any team the internal user belongs to, newest first. */
export async function listProjectsOwnedBy(db: Executor, internalTenancyId: string, userId: string): Promise<ProjectRow[]> {
  return db
    .selectFrom('projects as p')
    .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.owner_team_id').on('m.tenancy_id', '=', internalTenancyId))
    .select(qualified('p', PROJECT_COLUMNS))
    .where('m.user_id', '=', userId)
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id')
    .execute();
}

export async function isTeamMember(db: Executor, tenancyId: string, teamId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('team_members')
    .select('user_id')
    .where((eb) => eb.and({ tenancy_id: tenancyId, team_id: teamId, user_id: userId }))
    .executeTakeFirst();
  return row !== undefined;
}

export interface OwnerRow {
  user_id: string;
  display_name: string | null;
  primary_email: string | null;
  joined_at: Date;
}

/** The members of an owner team (a team of the internal project) with their names, in joining order. */
export async function listOwners(db: Executor, internalTenancyId: string, teamId: string): Promise<OwnerRow[]> {
  return db
    .selectFrom('team_members as m')
    .innerJoin('users as u', (join) => join.onRef('u.tenancy_id', '=', 'm.tenancy_id').onRef('u.id', '=', 'm.user_id'))
    .select(['m.user_id', 'u.display_name', 'u.primary_email', 'm.created_at as joined_at'])
    .where('m.tenancy_id', '=', internalTenancyId)
    .where('m.team_id', '=', teamId)
    .orderBy('m.created_at')
    .orderBy('m.user_id')
    .execute();
}

/** How many projects a team owns (cast in SQL: count is a string on pg and a number on PGlite). */
export async function countProjectsOwnedBy(db: Executor, teamId: string): Promise<number> {
  const row = await db
    .selectFrom('projects')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
    .where('owner_team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
