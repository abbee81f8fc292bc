import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { accessProcedure, clientProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../validation/schemas.js';
import * as schemas from './schemas.js';
import * as service from './service.js';

const TAGS = ['Auth'];

export const authRouter = router({
  passwordSignUp: accessProcedure('client')
    .meta({ openapi: { method: 'POST', path: '/auth/password/sign-up', tags: TAGS, summary: 'Sign up with email and password' } })
    .input(schemas.passwordSignUpSchema)
    .output(schemas.authResponseSchema)
    .mutation(({ ctx, input }) => service.signUpWithPassword(ctx.deps, ctx.auth, input.email, input.password, ctx.ip)),

  passwordSignIn: accessProcedure('client')
    .meta({ openapi: { method: 'POST', path: '/auth/password/sign-in', tags: TAGS, summary: 'Sign in with email and password' } })
    .input(schemas.passwordSignInSchema)
    .output(schemas.authResponseSchema)
    .mutation(({ ctx, input }) => service.signInWithPassword(ctx.deps, ctx.auth, input.email, input.password, ctx.ip)),

  passwordUpdate: clientProcedure
    .meta({ openapi: { method: 'POST', path: '/auth/password/update', tags: TAGS, summary: "Change the signed-in user's password (signs out their other sessions)" } })
    .input(schemas.passwordUpdateSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.updatePassword(ctx.deps, ctx.auth, input.old_password, input.new_password);
      return { success: true as const };
    }),

  passwordSet: clientProcedure
    .meta({ openapi: { method: 'POST', path: '/auth/password/set', tags: TAGS, summary: 'Set a first password for a user who has none' } })
    .input(schemas.passwordSetSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await service.setPassword(ctx.deps, ctx.auth, input.password);
      return { success: true as const };
    }),

  anonymousSignUp: accessProcedure('client')
    .meta({ openapi: { method: 'POST', path: '/auth/anonymous/sign-up', tags: TAGS, summary: 'Create an anonymous user (its tokens need x-latch-allow-anonymous-user: true)' } })
    .input(z.object({}))
    .output(schemas.authResponseSchema)
    .mutation(({ ctx }) => service.signUpAnonymously(ctx.deps, ctx.auth, ctx.ip)),
});
