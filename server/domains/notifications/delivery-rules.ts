import type { Executor } from '../../db/executor.js';
import type { Tenancy } from '../../access/context.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { TRANSACTIONAL_CATEGORY_ID } from '../../../contract/schemas/notifications.js';
import { findCategoryByName } from './categories.js';
import { categoryPreferencesOf, preferenceOf } from './queries.js';
import { unsubscribeUrl } from './unsubscribe-links.js';

/**
 * What the email pipeline asks before it sends a message in a notification category to a user: whether
 * the user still accepts that category, and the one-click unsubscribe link and RFC 8058 headers the
 * message must carry. The seam between sending (send-email, built-in emails) and notification
 * preferences (issue 17 item 4).
 */
export interface CategoryDecision {
  /** false when the user turned this category off (never false for a category that cannot be disabled). */
  send: boolean;
  /** The signed one-click unsubscribe URL for this user and category, or null for a transactional one. */
  unsubscribeUrl: string | null;
  /** `List-Unsubscribe` and `List-Unsubscribe-Post` when unsubscribeUrl is set, else {}. */
  headers: Record<string, string>;
}

const ALWAYS: CategoryDecision = { send: true, unsubscribeUrl: null, headers: {} };

/**
 * The decision for one recipient. `categoryName` is matched without case; null is Transactional
 * (what an email that names no category is, the built-in emails among them). A category that
 * cannot be disabled always sends and carries no link. A message to an address with no user
 * (`userId` null) has no preferences to honour and nobody to bind a link to: it is sent without one.
 * @throws NOTIFICATION_CATEGORY_NOT_FOUND for a name the project does not have (validate up front).
 */
export async function categoryDecision(db: Executor, tenancy: Tenancy, userId: string | null, categoryName: string | null): Promise<CategoryDecision> {
  if (categoryName === null) return ALWAYS;
  const category = await findCategoryByName(db, tenancy.id, categoryName);
  if (!category) throw new KnownErrors.NotificationCategoryNotFound(categoryName);
  if (!category.can_disable || category.id === TRANSACTIONAL_CATEGORY_ID || userId === null) return ALWAYS;
  const enabled = (await preferenceOf(db, tenancy.id, userId, category.id)) ?? category.default_enabled;
  const url = unsubscribeUrl(db, { tenancyId: tenancy.id, userId, categoryId: category.id });
  return {
    send: enabled,
    unsubscribeUrl: url,
    headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/**
 * categoryDecision for a batch of users: the category is looked up once and every user's
 * preference is read in one statement (send-email's batches; no query per recipient).
 * @throws NOTIFICATION_CATEGORY_NOT_FOUND for a name the project does not have.
 */
export async function categoryDecisions(
  db: Executor,
  tenancy: Tenancy,
  userIds: string[],
  categoryName: string | null,
): Promise<Map<string, CategoryDecision>> {
  const decisions = new Map<string, CategoryDecision>();
  if (categoryName === null) {
    for (const userId of userIds) decisions.set(userId, ALWAYS);
    return decisions;
  }
  const category = await findCategoryByName(db, tenancy.id, categoryName);
  if (!category) throw new KnownErrors.NotificationCategoryNotFound(categoryName);
  if (!category.can_disable || category.id === TRANSACTIONAL_CATEGORY_ID) {
    for (const userId of userIds) decisions.set(userId, ALWAYS);
    return decisions;
  }
  const preferences = await categoryPreferencesOf(db, tenancy.id, userIds, category.id);
  for (const userId of userIds) {
    const url = unsubscribeUrl(db, { tenancyId: tenancy.id, userId, categoryId: category.id });
    decisions.set(userId, {
      send: preferences.get(userId) ?? category.default_enabled,
      unsubscribeUrl: url,
      headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
  }
  return decisions;
}
