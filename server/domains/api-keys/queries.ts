import type { ApiKeySetRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { API_KEY_SET_COLUMNS } from '../../db/columns.js';

export async function insertApiKeySet(db: Executor, row: Omit<ApiKeySetRow, 'created_at' | 'manually_revoked_at'>): Promise<ApiKeySetRow> {
  return db.insertInto('api_key_sets').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listApiKeySets(db: Executor, projectId: string): Promise<ApiKeySetRow[]> {
  return db
    .selectFrom('api_key_sets')
    .select(API_KEY_SET_COLUMNS)
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(1000)
    .execute();
}

export async function findApiKeySet(db: Executor, projectId: string, id: string): Promise<ApiKeySetRow | undefined> {
  return db.selectFrom('api_key_sets').select(API_KEY_SET_COLUMNS).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function updateApiKeySet(
  db: Executor,
  projectId: string,
  id: string,
  patch: { description?: string; manually_revoked_at?: Date },
): Promise<ApiKeySetRow | undefined> {
  return db.updateTable('api_key_sets').set(patch).where('project_id', '=', projectId).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteApiKeySet(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('api_key_sets').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
