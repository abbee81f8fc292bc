import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { clientProcedure, signInProcedure } from '../../trpc/procedures.js';
import { admitPasswordCalls } from '../../trpc/password-admission.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as magicLink from './magic-link.js';
import * as passwordReset from './password-reset.js';
import * as schemas from '../../../contract/schemas/auth.js';
import * as anonymous from './anonymous.js';
import * as password from './password.js';

const TAGS = ['Auth'];

export const authRouter = router({
  passwordSignUp: signInProcedure('client').use(admitPasswordCalls())
    .meta({ openapi: { method: 'POST', path: '/auth/password/sign-up', tags: TAGS, summary: 'Sign up with email and password' } })
    .input(schemas.passwordSignUpSchema)
    .output(schemas.authResponseSchema)
    .mutation(({ ctx, input }) => password.signUpWithPassword(ctx.deps, ctx.auth, input.email, input.password, ctx.ip, input.verification_callback_url)),

  passwordSignIn: signInProcedure('client').use(admitPasswordCalls())
    .meta({ openapi: { method: 'POST', path: '/auth/password/sign-in', tags: TAGS, summary: 'Sign in with email and password' } })
    .input(schemas.passwordSignInSchema)
    .output(schemas.authResponseSchema)
    .mutation(({ ctx, input }) => password.signInWithPassword(ctx.deps, ctx.auth, input.email, input.password, ctx.ip)),

  passwordUpdate: clientProcedure.use(admitPasswordCalls())
    .meta({ openapi: { method: 'POST', path: '/auth/password/update', tags: TAGS, summary: "Change the signed-in user's password (signs out their other sessions)" } })
    .input(schemas.passwordUpdateSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await password.updatePassword(ctx.deps, ctx.auth, input.old_password, input.new_password, ctx.ip);
      return { success: true as const };
    }),

  passwordSet: clientProcedure.use(admitPasswordCalls())
    .meta({ openapi: { method: 'POST', path: '/auth/password/set', tags: TAGS, summary: 'Set a first password for a user who has none' } })
    .input(schemas.passwordSetSchema)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await password.setPassword(ctx.deps, ctx.auth, input.password, ctx.ip);
      return { success: true as const };
    }),

  passwordSendResetCode: signInProcedure('client', 'server', 'admin')
    .meta({ openapi: { method: 'POST', path: '/auth/password/send-reset-code', tags: TAGS, summary: 'Email a password reset link (the same answer whether or not the account exists)' } })
    .input(schemas.sendResetCodeSchema)
    .output(successSchema)
    .mutation(({ ctx, input }) => passwordReset.sendResetCode(ctx.deps, ctx.auth, input.email, input.callback_url, ctx.ip)),

  passwordResetCheckCode: signInProcedure('client', 'server', 'admin')
    .meta({ openapi: { method: 'POST', path: '/auth/password/reset/check-code', tags: TAGS, summary: 'Check a password reset code without using it' } })
    .input(schemas.resetCheckCodeSchema)
    .output(schemas.resetCheckCodeResultSchema)
    .mutation(({ ctx, input }) => passwordReset.checkResetCode(ctx.deps, ctx.auth, input.code, ctx.ip)),

  passwordReset: signInProcedure('client', 'server', 'admin').use(admitPasswordCalls())
    .meta({ openapi: { method: 'POST', path: '/auth/password/reset', tags: TAGS, summary: 'Set a new password with a reset code (signs the user out everywhere)' } })
    .input(schemas.passwordResetSchema)
    .output(successSchema)
    .mutation(({ ctx, input }) => passwordReset.resetPassword(ctx.deps, ctx.auth, input.code, input.password, ctx.ip)),

  otpSendSignInCode: signInProcedure('client')
    .meta({ openapi: { method: 'POST', path: '/auth/otp/send-sign-in-code', tags: TAGS, summary: 'Email a magic link and a 6-character sign-in code (magic_link_enabled)' } })
    .input(schemas.otpSendSignInCodeSchema)
    .output(schemas.otpSendSignInCodeResultSchema)
    .mutation(({ ctx, input }) => magicLink.sendSignInCode(ctx.deps, ctx.auth, input.email, input.callback_url, ctx.ip)),

  otpSignIn: signInProcedure('client')
    .meta({ openapi: { method: 'POST', path: '/auth/otp/sign-in', tags: TAGS, summary: 'Sign in (or sign up) with a magic link code, or a typed code followed by the nonce' } })
    .input(schemas.otpSignInSchema)
    .output(schemas.authResponseSchema)
    .mutation(({ ctx, input }) => magicLink.signInWithCode(ctx.deps, ctx.auth, input.code, ctx.ip)),

  anonymousSignUp: signInProcedure('client')
    .meta({ openapi: { method: 'POST', path: '/auth/anonymous/sign-up', tags: TAGS, summary: 'Create an anonymous user (its tokens need x-latch-allow-anonymous-user: true)' } })
    .input(z.object({}))
    .output(schemas.authResponseSchema)
    .mutation(({ ctx }) => anonymous.signUpAnonymously(ctx.deps, ctx.auth, ctx.ip)),
});
