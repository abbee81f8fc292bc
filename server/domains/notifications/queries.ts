import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';

const CATEGORY_COLUMNS = ['id', 'name', 'can_disable', 'default_enabled'] as const;

export interface CategoryRow {
  id: string;
  name: string;
  can_disable: boolean;
  default_enabled: boolean;
}

export async function listOwnerCategories(db: Executor, tenancyId: string): Promise<CategoryRow[]> {
  return db.selectFrom('notification_categories').select(CATEGORY_COLUMNS).where('tenancy_id', '=', tenancyId).orderBy('created_at').orderBy('id').execute();
}

export async function findOwnerCategoryById(db: Executor, tenancyId: string, id: string): Promise<CategoryRow | undefined> {
  return db.selectFrom('notification_categories').select(CATEGORY_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
}

export async function findOwnerCategoryByName(db: Executor, tenancyId: string, name: string): Promise<CategoryRow | undefined> {
  return db
    .selectFrom('notification_categories')
    .select(CATEGORY_COLUMNS)
    .where('tenancy_id', '=', tenancyId)
    .where('name_key', '=', name.toLowerCase())
    .executeTakeFirst();
}

export async function insertOwnerCategory(db: Executor, tenancyId: string, row: CategoryRow): Promise<void> {
  await db
    .insertInto('notification_categories')
    .values({ tenancy_id: tenancyId, ...row, name_key: row.name.toLowerCase() })
    .execute();
}

/** Deletes the category and every preference users set for it; false when there was none. */
export async function deleteOwnerCategory(db: Executor, tenancyId: string, id: string): Promise<boolean> {
  await db.deleteFrom('notification_preferences').where('tenancy_id', '=', tenancyId).where('category_id', '=', id).execute();
  const result = await db.deleteFrom('notification_categories').where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The user's stored choices, category id → enabled. */
export async function preferencesOf(db: Executor, tenancyId: string, userId: string): Promise<Map<string, boolean>> {
  const rows = await db
    .selectFrom('notification_preferences')
    .select(['category_id', 'enabled'])
    .where('tenancy_id', '=', tenancyId)
    .where('user_id', '=', userId)
    .execute();
  return new Map(rows.map((row) => [row.category_id, row.enabled]));
}

export async function preferenceOf(db: Executor, tenancyId: string, userId: string, categoryId: string): Promise<boolean | undefined> {
  const row = await db
    .selectFrom('notification_preferences')
    .select('enabled')
    .where('tenancy_id', '=', tenancyId)
    .where('user_id', '=', userId)
    .where('category_id', '=', categoryId)
    .executeTakeFirst();
  return row?.enabled;
}

/** Many users' explicit choices for one category in one statement (send-email's batches); users without one are absent. */
export async function categoryPreferencesOf(db: Executor, tenancyId: string, userIds: string[], categoryId: string): Promise<Map<string, boolean>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('notification_preferences')
    .select(['user_id', 'enabled'])
    .where('tenancy_id', '=', tenancyId)
    .where('category_id', '=', categoryId)
    .where('user_id', 'in', userIds)
    .execute();
  return new Map(rows.map((row) => [row.user_id, row.enabled]));
}

export async function upsertPreference(db: Executor, tenancyId: string, userId: string, categoryId: string, enabled: boolean): Promise<void> {
  await db
    .insertInto('notification_preferences')
    .values({ tenancy_id: tenancyId, user_id: userId, category_id: categoryId, enabled })
    .onConflict((oc) => oc.columns(['tenancy_id', 'user_id', 'category_id']).doUpdateSet({ enabled, updated_at: sql<Date>`now()` }))
    .execute();
}

/** The display name of the project a tenancy belongs to (the unsubscribe page names it). */
export async function projectNameOfTenancy(db: Executor, tenancyId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('tenancies as t')
    .innerJoin('projects as p', 'p.id', 't.project_id')
    .select('p.display_name')
    .where('t.id', '=', tenancyId)
    .executeTakeFirst();
  return row?.display_name;
}
