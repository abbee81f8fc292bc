import { sql } from 'kysely';
import type { UserTeamApiKeyRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { USER_TEAM_API_KEY_COLUMNS } from '../../db/columns.js';

export async function insertApiKey(
  db: Executor,
  row: {
    tenancy_id: string;
    id: string;
    secret_hash: string;
    last_four: string;
    is_public: boolean;
    description: string;
    expires_at: Date | null;
    user_id: string | null;
    team_id: string | null;
    created_by_user_id: string | null;
  },
): Promise<UserTeamApiKeyRow> {
  return db.insertInto('user_team_api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findApiKey(db: Executor, tenancyId: string, id: string): Promise<UserTeamApiKeyRow | undefined> {
  return db.selectFrom('user_team_api_keys').select(USER_TEAM_API_KEY_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
}

/** By hash, within the tenancy: a key of another project is simply not found. */
export async function findApiKeyByHash(db: Executor, tenancyId: string, secretHash: string): Promise<UserTeamApiKeyRow | undefined> {
  return db
    .selectFrom('user_team_api_keys')
    .select(USER_TEAM_API_KEY_COLUMNS)
    .where((eb) => eb.and({ secret_hash: secretHash, tenancy_id: tenancyId }))
    .executeTakeFirst();
}

export async function listApiKeys(db: Executor, tenancyId: string, owner: { userId: string } | { teamId: string }): Promise<UserTeamApiKeyRow[]> {
  let query = db.selectFrom('user_team_api_keys').select(USER_TEAM_API_KEY_COLUMNS).where('tenancy_id', '=', tenancyId);
  query = 'userId' in owner ? query.where('user_id', '=', owner.userId) : query.where('team_id', '=', owner.teamId);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** Keys of one owner that still work: not revoked, not expired (the QUOTA_EXCEEDED cap counts these). */
export async function countActiveApiKeys(db: Executor, tenancyId: string, owner: { userId: string } | { teamId: string }): Promise<number> {
  let query = db
    .selectFrom('user_team_api_keys')
    .select(sql<number>`count(*)::integer`.as('count'))
    .where('tenancy_id', '=', tenancyId);
  query = 'userId' in owner ? query.where('user_id', '=', owner.userId) : query.where('team_id', '=', owner.teamId);
  const row = await query
    .where('manually_revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateApiKey(
  db: Executor,
  tenancyId: string,
  id: string,
  patch: { description?: string; expires_at?: Date | null; manually_revoked_at?: Date },
): Promise<UserTeamApiKeyRow | undefined> {
  if (Object.keys(patch).length === 0) return findApiKey(db, tenancyId, id);
  return db.updateTable('user_team_api_keys').set(patch).where('tenancy_id', '=', tenancyId).where('id', '=', id).returningAll().executeTakeFirst();
}

/**
 * Revokes, now, every live key of a user and every team key that user created (sign-out
 * everywhere). Public keys too: "public" means safe to show, not harmless to keep.
 */
export async function revokeKeysOfUser(db: Executor, tenancyId: string, userId: string): Promise<number> {
  const result = await db
    .updateTable('user_team_api_keys')
    .set({ manually_revoked_at: new Date() })
    .where('tenancy_id', '=', tenancyId)
    .where((eb) => eb.or([eb('user_id', '=', userId), eb('created_by_user_id', '=', userId)]))
    .where('manually_revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
