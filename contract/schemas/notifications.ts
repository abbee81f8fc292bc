/**
 * Notification categories and a user's preferences (spec section 3, "Notification category";
 * section 7, `/emails/notification-preference/*`), and the owner's own categories
 * (`/internal/notification-categories`, beyond the spec).
 */
import { z } from 'zod';
import { shortList, userIdOrMeSchema, uuidSchema } from '../validation/schemas.js';

/** The two categories every project has (Stack Auth's ids, so data and SDK code carry over). */
export const TRANSACTIONAL_CATEGORY_ID = '7bb82d33-2f54-4a3d-9d23-82739e0d66ef';
export const MARKETING_CATEGORY_ID = '4f6f8873-3d04-46bd-8bef-18338b1a1b4c';

/** One category as a user sees it: `enabled` is that user's choice (or the category's default). */
export const notificationCategorySchema = z.object({
  notification_category_id: z.string(),
  notification_category_name: z.string(),
  enabled: z.boolean(),
  can_disable: z.boolean(),
});
export type NotificationCategory = z.infer<typeof notificationCategorySchema>;
export const notificationCategoryListSchema = shortList(notificationCategorySchema);

export const notificationPreferenceListParamsSchema = z.object({ user_id: userIdOrMeSchema });
export const notificationPreferenceUpdateSchema = z.object({
  user_id: userIdOrMeSchema,
  notification_category_id: uuidSchema,
  enabled: z.boolean(),
});

/** A category name: what `<NotificationCategory>` and send-email's notification_category_name carry. */
export const notificationCategoryNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _.&'-]*$/u, "must start with a letter or digit and hold only letters, digits, spaces and _ . & ' -");

/** A category as the owner manages it. */
export const ownerNotificationCategorySchema = z.object({
  id: z.string(),
  name: z.string(),
  can_disable: z.boolean(),
  default_enabled: z.boolean(),
  /** Transactional and Marketing: every project has them; they cannot be changed or deleted. */
  built_in: z.boolean(),
});
export const ownerNotificationCategoryListSchema = shortList(ownerNotificationCategorySchema);
export const createNotificationCategorySchema = z.strictObject({
  name: notificationCategoryNameSchema,
  can_disable: z.boolean().optional(),
  default_enabled: z.boolean().optional(),
});
export const notificationCategoryIdParamsSchema = z.object({ notification_category_id: uuidSchema });
export const listCategoriesQuerySchema = z.object({});
