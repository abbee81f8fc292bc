/**
 * Notification categories: the two every project has (Transactional, which cannot be disabled, and
 * Marketing, which can: Stack Auth's names and ids) and the ones an owner adds (rows, migration
 * 0018). A category is found by id (preferences, unsubscribe links) or by name, without case
 * (`<NotificationCategory>` in a template, send-email's notification_category_name).
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import type { AuthContext } from '../../access/context.js';
import { isUniqueViolation } from '../../db/errors.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { MARKETING_CATEGORY_ID, TRANSACTIONAL_CATEGORY_ID } from '../../../contract/schemas/notifications.js';
import * as q from './queries.js';

export interface Category extends q.CategoryRow {
  built_in: boolean;
}

export const BUILT_IN_CATEGORIES: readonly Category[] = [
  { id: TRANSACTIONAL_CATEGORY_ID, name: 'Transactional', can_disable: false, default_enabled: true, built_in: true },
  { id: MARKETING_CATEGORY_ID, name: 'Marketing', can_disable: true, default_enabled: true, built_in: true },
];

const builtInByName = (name: string) => BUILT_IN_CATEGORIES.find((c) => c.name.toLowerCase() === name.toLowerCase());

export async function listCategories(db: Executor, tenancyId: string): Promise<Category[]> {
  const own = await q.listOwnerCategories(db, tenancyId);
  return [...BUILT_IN_CATEGORIES, ...own.map((row) => ({ ...row, built_in: false }))];
}

export async function findCategoryById(db: Executor, tenancyId: string, id: string): Promise<Category | undefined> {
  const builtIn = BUILT_IN_CATEGORIES.find((c) => c.id === id);
  if (builtIn) return builtIn;
  const row = await q.findOwnerCategoryById(db, tenancyId, id);
  return row && { ...row, built_in: false };
}

export async function findCategoryByName(db: Executor, tenancyId: string, name: string): Promise<Category | undefined> {
  const builtIn = builtInByName(name);
  if (builtIn) return builtIn;
  const row = await q.findOwnerCategoryByName(db, tenancyId, name);
  return row && { ...row, built_in: false };
}

/** Admin: adds a category (a name no other category has, built-in ones included). */
export async function createCategory(
  deps: Deps,
  auth: AuthContext,
  input: { name: string; can_disable?: boolean; default_enabled?: boolean },
): Promise<Category> {
  const name = input.name.trim();
  if (builtInByName(name)) throw new KnownErrors.NotificationCategoryAlreadyExists(name);
  const row: q.CategoryRow = { id: randomUUID(), name, can_disable: input.can_disable ?? true, default_enabled: input.default_enabled ?? true };
  // A category that cannot be disabled is always on: a default of "off" would never send.
  if (!row.can_disable) row.default_enabled = true;
  try {
    await q.insertOwnerCategory(deps.db, auth.tenancy.id, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw new KnownErrors.NotificationCategoryAlreadyExists(name);
    throw error;
  }
  return { ...row, built_in: false };
}

/** Admin: deletes an owner's category with the preferences users set for it. */
export async function deleteCategory(deps: Deps, auth: AuthContext, id: string): Promise<void> {
  if (BUILT_IN_CATEGORIES.some((c) => c.id === id))
    throw new KnownErrors.SchemaError('Request validation failed:\n  - notification_category_id names a built-in category, which cannot be deleted');
  const deleted = await deps.db.transaction().execute((trx) => q.deleteOwnerCategory(trx, auth.tenancy.id, id));
  if (!deleted) throw new KnownErrors.NotificationCategoryNotFound(id);
}
