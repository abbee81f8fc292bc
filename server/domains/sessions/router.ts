import { z } from 'zod';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure, projectAccessProcedure, publicProcedure, serverProcedure } from '../../trpc/procedures.js';
import { findProject } from '../projects/queries.js';
import { applyAuthHeader } from '../../access/resolve.js';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/sessions.js';
import { createSessionForUser } from './create.js';
import { refreshAccessToken } from './refresh.js';
import * as service from './service.js';

const op = restOperations(['Sessions']);

export const sessionsRouter = router({
  refresh: op(
    projectAccessProcedure('client', 'server', 'admin'),
    'POST /auth/sessions/current/refresh',
    'A new access token for the refresh token in x-latch-refresh-token',
    { input: z.object({}), output: schemas.refreshResponseSchema },
  ).mutation(async ({ ctx }) => ({ access_token: await refreshAccessToken(ctx.deps, ctx.auth.tenancy, applyAuthHeader(ctx.headers).refreshToken, ctx.ip) })),

  signOut: op(clientProcedure, 'DELETE /auth/sessions/current', 'Sign out: ends the current session', { input: z.object({}), output: successSchema }).mutation(
    succeedAfter(({ ctx }) => service.signOut(ctx.deps, ctx.auth)),
  ),

  list: op(clientProcedure, 'GET /auth/sessions', "A user's active sessions (clients: their own)", {
    input: schemas.sessionListQuerySchema,
    output: shortList(schemas.sessionSchema),
  }).query(asShortList(({ ctx, input }) => service.listUserSessions(ctx.deps, ctx.auth, input.user_id))),

  revoke: op(clientProcedure, 'DELETE /auth/sessions/{id}', 'Revoke another session of a user', {
    input: schemas.sessionDeleteSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.revokeSession(ctx.deps, ctx.auth, input.id, input.user_id))),

  create: op(serverProcedure, 'POST /auth/sessions', 'Create a session for a user (server; impersonation)', {
    input: schemas.sessionCreateSchema,
    output: schemas.tokenPairSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => createSessionForUser(ctx.deps, ctx.auth, input)),

  jwks: op(publicProcedure, 'GET /projects/{project_id}/.well-known/jwks.json', "Public keys that verify the project's access tokens", {
    input: z.object({ project_id: z.string().min(1).max(256) }),
    output: schemas.jwksSchema,
  }).query(async ({ ctx, input }) => {
    if (!(await findProject(ctx.deps.db, input.project_id))) throw new KnownErrors.ProjectNotFound(input.project_id);
    // The project's own keys only: a token of another project never verifies against them.
    return ctx.deps.keyring.jwks(input.project_id);
  }),
});
