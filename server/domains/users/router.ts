import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import { admitPasswordCalls, setsPassword } from '../../trpc/password-admission.js';
import { successSchema, uuidSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/users.js';
import * as service from './service.js';

const TAGS = ['Users'];
const userIdParam = z.object({ user_id: z.union([z.literal('me'), uuidSchema]) });

export const usersRouter = router({
  getMe: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/users/me', tags: TAGS, summary: 'The signed-in user' } })
    .input(z.object({}))
    .output(schemas.userOutputSchema)
    .query(({ ctx }) => service.getUser(ctx.deps, ctx.auth, 'me')),

  updateMe: clientProcedure.use(admitPasswordCalls(setsPassword))
    .meta({ openapi: { method: 'PATCH', path: '/users/me', tags: TAGS, summary: 'Update the signed-in user' } })
    .input(schemas.serverUserUpdateSchema)
    .output(schemas.userOutputSchema)
    .mutation(({ ctx, input }) => service.updateUser(ctx.deps, ctx.auth, 'me', input, ctx.ip)),

  deleteMe: clientProcedure
    .meta({ openapi: { method: 'DELETE', path: '/users/me', tags: TAGS, summary: 'Delete the signed-in user (clients: when client_user_deletion_enabled)' } })
    .input(z.object({}))
    .output(successSchema)
    .mutation(async ({ ctx }) => {
      await service.deleteUser(ctx.deps, ctx.auth, 'me');
      return { success: true as const };
    }),

  get: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/users/{user_id}', tags: TAGS, summary: 'A user by id (clients: only themselves)' } })
    .input(userIdParam)
    .output(schemas.userOutputSchema)
    .query(({ ctx, input }) => service.getUser(ctx.deps, ctx.auth, input.user_id)),

  update: clientProcedure.use(admitPasswordCalls(setsPassword))
    .meta({ openapi: { method: 'PATCH', path: '/users/{user_id}', tags: TAGS, summary: 'Update a user (clients: only themselves, client fields only)' } })
    .input(schemas.serverUserUpdateSchema.extend(userIdParam.shape))
    .output(schemas.userOutputSchema)
    .mutation(({ ctx, input }) => {
      const { user_id, ...patch } = input;
      return service.updateUser(ctx.deps, ctx.auth, user_id, patch, ctx.ip);
    }),

  delete: clientProcedure
    .meta({ openapi: { method: 'DELETE', path: '/users/{user_id}', tags: TAGS, summary: 'Delete a user and everything of theirs' } })
    .input(userIdParam)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.deleteUser(ctx.deps, ctx.auth, input.user_id);
      return { success: true as const };
    }),

  create: serverProcedure.use(admitPasswordCalls(setsPassword))
    .meta({ openapi: { method: 'POST', path: '/users', tags: TAGS, summary: 'Create a user (with a password or an imported bcrypt/argon2id hash)' }, successStatus: 201 })
    .input(schemas.userCreateSchema)
    .output(schemas.serverUserSchema)
    .mutation(({ ctx, input }) => service.createUser(ctx.deps, ctx.auth, input, ctx.ip)),

  list: serverProcedure
    .meta({ openapi: { method: 'GET', path: '/users', tags: TAGS, summary: 'List users, cursor-paginated; search by email, name or id' } })
    .input(schemas.userListQuerySchema)
    .output(schemas.userListSchema)
    .query(({ ctx, input }) => service.listUsers(ctx.deps, ctx.auth, input)),
});
