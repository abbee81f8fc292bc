import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../trpc/operation.js';
import { adminProcedure, clientProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/notifications.js';
import * as categories from './categories.js';
import * as preferences from './preferences.js';

const op = restOperations(['Notification preferences'], { protect: true });

/** A user's notification preferences (spec section 7) and the owner's categories (the one-click unsubscribe page is server/http/unsubscribe.ts). */
export const notificationsRouter = router({
  listPreferences: op(
    clientProcedure,
    'GET /emails/notification-preference/{user_id}',
    "A user's notification categories with their choice (clients: only their own, `me`)",
    { input: schemas.notificationPreferenceListParamsSchema, output: schemas.notificationCategoryListSchema },
  ).query(asShortList(({ ctx, input }) => preferences.listPreferences(ctx.deps, ctx.auth, input.user_id))),

  updatePreference: op(
    clientProcedure,
    'PATCH /emails/notification-preference/{user_id}/{notification_category_id}',
    'Turn a notification category on or off for a user (a category that cannot be disabled stays on)',
    { input: schemas.notificationPreferenceUpdateSchema, output: schemas.notificationCategorySchema },
  ).mutation(({ ctx, input }) => preferences.updatePreference(ctx.deps, ctx.auth, input)),

  listCategories: op(adminProcedure, 'GET /internal/notification-categories', "The project's notification categories: the built-in two and the owner's", {
    input: schemas.listCategoriesQuerySchema,
    output: schemas.ownerNotificationCategoryListSchema,
  }).query(asShortList(({ ctx }) => categories.listCategories(ctx.deps.db, ctx.auth.tenancy.id))),

  createCategory: op(adminProcedure, 'POST /internal/notification-categories', 'Add a notification category emails can name', {
    input: schemas.createNotificationCategorySchema,
    output: schemas.ownerNotificationCategorySchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => categories.createCategory(ctx.deps, ctx.auth, input)),

  deleteCategory: op(
    adminProcedure,
    'DELETE /internal/notification-categories/{notification_category_id}',
    "Delete an owner's notification category and the preferences users set for it",
    { input: schemas.notificationCategoryIdParamsSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => categories.deleteCategory(ctx.deps, ctx.auth, input.notification_category_id))),
});
