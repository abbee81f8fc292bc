import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure, serverProcedure } from '../../trpc/procedures.js';
import { admitPasswordCalls, setsPassword } from '../../trpc/password-admission.js';
import { successSchema, uuidSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/users.js';
import * as service from './service.js';

const op = restOperations(['Users']);
const userIdParam = z.object({ user_id: z.union([z.literal('me'), uuidSchema]) });

export const usersRouter = router({
  getMe: op(clientProcedure, 'GET /users/me', 'The signed-in user', { input: z.object({}), output: schemas.userOutputSchema }).query(({ ctx }) =>
    service.getUser(ctx.deps, ctx.auth, 'me'),
  ),

  updateMe: op(clientProcedure.use(admitPasswordCalls(setsPassword)), 'PATCH /users/me', 'Update the signed-in user', {
    input: schemas.serverUserUpdateSchema,
    output: schemas.userOutputSchema,
  }).mutation(({ ctx, input }) => service.updateUser(ctx.deps, ctx.auth, 'me', input, ctx.ip)),

  deleteMe: op(clientProcedure, 'DELETE /users/me', 'Delete the signed-in user (clients: when client_user_deletion_enabled)', {
    input: z.object({}),
    output: successSchema,
  }).mutation(succeedAfter(({ ctx }) => service.deleteUser(ctx.deps, ctx.auth, 'me'))),

  get: op(clientProcedure, 'GET /users/{user_id}', 'A user by id (clients: only themselves)', { input: userIdParam, output: schemas.userOutputSchema }).query(
    ({ ctx, input }) => service.getUser(ctx.deps, ctx.auth, input.user_id),
  ),

  update: op(clientProcedure.use(admitPasswordCalls(setsPassword)), 'PATCH /users/{user_id}', 'Update a user (clients: only themselves, client fields only)', {
    input: schemas.serverUserUpdateSchema.extend(userIdParam.shape),
    output: schemas.userOutputSchema,
  }).mutation(({ ctx, input }) => {
    const { user_id, ...patch } = input;
    return service.updateUser(ctx.deps, ctx.auth, user_id, patch, ctx.ip);
  }),

  delete: op(clientProcedure, 'DELETE /users/{user_id}', 'Delete a user and everything of theirs', { input: userIdParam, output: successSchema }).mutation(
    succeedAfter(({ ctx, input }) => service.deleteUser(ctx.deps, ctx.auth, input.user_id)),
  ),

  create: op(serverProcedure.use(admitPasswordCalls(setsPassword)), 'POST /users', 'Create a user (with a password or an imported bcrypt/argon2id hash)', {
    input: schemas.userCreateSchema,
    output: schemas.serverUserSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => service.createUser(ctx.deps, ctx.auth, input, ctx.ip)),

  list: op(serverProcedure, 'GET /users', 'List users, cursor-paginated; search by email, name or id', {
    input: schemas.userListQuerySchema,
    output: schemas.userListSchema,
  }).query(({ ctx, input }) => service.listUsers(ctx.deps, ctx.auth, input)),
});
