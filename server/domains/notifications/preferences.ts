/**
 * `/emails/notification-preference/{user_id}[/{notification_category_id}]`: a user's categories with
 * their choice. Clients see and change only their own (`me` or their id; another id is
 * USER_NOT_FOUND); server and admin keys any user of their project.
 */
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import type { AuthContext } from '../../access/context.js';
import { resolveExistingUserId } from '../../access/policy.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { NotificationCategory } from '../../../contract/schemas/notifications.js';
import { type Category, findCategoryById, listCategories } from './categories.js';
import * as q from './queries.js';

function toDto(category: Category, stored: boolean | undefined): NotificationCategory {
  return {
    notification_category_id: category.id,
    notification_category_name: category.name,
    // A category that cannot be disabled is on, whatever was stored before it became so.
    enabled: category.can_disable ? (stored ?? category.default_enabled) : true,
    can_disable: category.can_disable,
  };
}

export async function listPreferences(deps: Deps, auth: AuthContext, userIdParam: string): Promise<NotificationCategory[]> {
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  const [categories, stored] = await Promise.all([listCategories(deps.db, auth.tenancy.id), q.preferencesOf(deps.db, auth.tenancy.id, userId)]);
  return categories.map((category) => toDto(category, stored.get(category.id)));
}

/** Turns a category on or off for a user; the same rule the unsubscribe link applies. */
export async function setPreference(db: Executor, tenancyId: string, userId: string, categoryId: string, enabled: boolean): Promise<NotificationCategory> {
  const category = await findCategoryById(db, tenancyId, categoryId);
  if (!category) throw new KnownErrors.NotificationCategoryNotFound(categoryId);
  if (!enabled && !category.can_disable) throw new KnownErrors.NotificationCategoryCannotBeDisabled(category.name);
  if (category.can_disable) await q.upsertPreference(db, tenancyId, userId, category.id, enabled);
  return toDto(category, enabled);
}

export async function updatePreference(
  deps: Deps,
  auth: AuthContext,
  input: { user_id: string; notification_category_id: string; enabled: boolean },
): Promise<NotificationCategory> {
  const userId = await resolveExistingUserId(deps, auth, input.user_id);
  return deps.db.transaction().execute((trx) => setPreference(trx, auth.tenancy.id, userId, input.notification_category_id, input.enabled));
}
