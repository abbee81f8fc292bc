import { z } from 'zod';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { router } from '../../trpc/init.js';
import { clientProcedure, projectAccessProcedure, publicProcedure, serverProcedure } from '../../trpc/procedures.js';
import { findProject } from '../projects/queries.js';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/sessions.js';
import { createSessionForUser } from './create.js';
import { refreshAccessToken } from './refresh.js';
import * as service from './service.js';

const TAGS = ['Sessions'];

export const sessionsRouter = router({
  refresh: projectAccessProcedure('client', 'server', 'admin')
    .meta({ openapi: { method: 'POST', path: '/auth/sessions/current/refresh', tags: TAGS, summary: 'A new access token for the refresh token in x-latch-refresh-token' } })
    .input(z.object({}))
    .output(schemas.refreshResponseSchema)
    .mutation(async ({ ctx }) => ({ access_token: await refreshAccessToken(ctx.deps, ctx.auth.tenancy, ctx.headers.refreshToken ?? refreshFromAuthHeader(ctx.headers.authHeader), ctx.ip) })),

  signOut: clientProcedure
    .meta({ openapi: { method: 'DELETE', path: '/auth/sessions/current', tags: TAGS, summary: 'Sign out: ends the current session' } })
    .input(z.object({}))
    .output(successSchema)
    .mutation(async ({ ctx }) => {
      await service.signOut(ctx.deps, ctx.auth);
      return { success: true as const };
    }),

  list: clientProcedure
    .meta({ openapi: { method: 'GET', path: '/auth/sessions', tags: TAGS, summary: "A user's active sessions (clients: their own)" } })
    .input(schemas.sessionListQuerySchema)
    .output(shortList(schemas.sessionSchema))
    .query(async ({ ctx, input }) => ({ items: await service.listUserSessions(ctx.deps, ctx.auth, input.user_id), is_paginated: false as const })),

  revoke: clientProcedure
    .meta({ openapi: { method: 'DELETE', path: '/auth/sessions/{id}', tags: TAGS, summary: 'Revoke another session of a user' } })
    .input(schemas.sessionDeleteSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.revokeSession(ctx.deps, ctx.auth, input.id, input.user_id);
      return { success: true as const };
    }),

  create: serverProcedure
    .meta({ openapi: { method: 'POST', path: '/auth/sessions', tags: TAGS, summary: 'Create a session for a user (server; impersonation)' }, successStatus: 201 })
    .input(schemas.sessionCreateSchema)
    .output(schemas.tokenPairSchema)
    .mutation(({ ctx, input }) => createSessionForUser(ctx.deps, ctx.auth, input)),

  jwks: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/projects/{project_id}/.well-known/jwks.json', tags: TAGS, summary: "Public keys that verify the project's access tokens" } })
    .input(z.object({ project_id: z.string().min(1).max(256) }))
    .output(schemas.jwksSchema)
    .query(async ({ ctx, input }) => {
      if (!(await findProject(ctx.deps.db, input.project_id))) throw new KnownErrors.ProjectNotFound(input.project_id);
      // The project's own keys only: a token of another project never verifies against them.
      return ctx.deps.keyring.jwks(input.project_id);
    }),
});

function refreshFromAuthHeader(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && 'refreshToken' in parsed && typeof parsed.refreshToken === 'string' ? parsed.refreshToken : null;
  } catch {
    return null;
  }
}
