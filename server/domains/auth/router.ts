import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure, serverProcedure, signInProcedure } from '../../trpc/procedures.js';
import { admitPasswordCalls } from '../../trpc/password-admission.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as magicLink from './magic-link.js';
import * as passwordReset from './password-reset.js';
import * as schemas from '../../../contract/schemas/auth.js';
import * as anonymous from './anonymous.js';
import * as cli from './cli.js';
import * as cliSchemas from '../../../contract/schemas/cli.js';
import * as password from './password.js';
import * as mfa from './mfa.js';
import { mfaSignInSchema } from '../../../contract/schemas/mfa.js';
import * as passkey from './passkey.js';
import * as impersonation from './impersonation.js';
import * as impersonationSchemas from '../../../contract/schemas/impersonation.js';
import * as passkeySchemas from '../../../contract/schemas/passkeys.js';

const op = restOperations(['Auth']);

export const authRouter = router({
  passwordSignUp: op(signInProcedure('client').use(admitPasswordCalls()), 'POST /auth/password/sign-up', 'Sign up with email and password', {
    input: schemas.passwordSignUpSchema,
    output: schemas.authResponseSchema,
  }).mutation(({ ctx, input }) => password.signUpWithPassword(ctx.deps, ctx.auth, input.email, input.password, ctx.ip, input.verification_callback_url)),

  passwordSignIn: op(signInProcedure('client').use(admitPasswordCalls()), 'POST /auth/password/sign-in', 'Sign in with email and password', {
    input: schemas.passwordSignInSchema,
    output: schemas.authResponseSchema,
  }).mutation(({ ctx, input }) => password.signInWithPassword(ctx.deps, ctx.auth, input.email, input.password, ctx.ip)),

  passwordUpdate: op(
    clientProcedure.use(admitPasswordCalls()),
    'POST /auth/password/update',
    "Change the signed-in user's password (signs out their other sessions)",
    { input: schemas.passwordUpdateSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => password.updatePassword(ctx.deps, ctx.auth, input.old_password, input.new_password, ctx.ip))),

  passwordSet: op(clientProcedure.use(admitPasswordCalls()), 'POST /auth/password/set', 'Set a first password for a user who has none', {
    input: schemas.passwordSetSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => password.setPassword(ctx.deps, ctx.auth, input.password, ctx.ip))),

  passwordSendResetCode: op(
    signInProcedure('client', 'server', 'admin'),
    'POST /auth/password/send-reset-code',
    'Email a password reset link (the same answer whether or not the account exists)',
    { input: schemas.sendResetCodeSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => passwordReset.sendResetCode(ctx.deps, ctx.auth, input.email, input.callback_url, ctx.ip))),

  passwordResetCheckCode: op(
    signInProcedure('client', 'server', 'admin'),
    'POST /auth/password/reset/check-code',
    'Check a password reset code without using it',
    { input: schemas.resetCheckCodeSchema, output: schemas.resetCheckCodeResultSchema },
  ).mutation(({ ctx, input }) => passwordReset.checkResetCode(ctx.deps, ctx.auth, input.code, ctx.ip)),

  passwordReset: op(
    signInProcedure('client', 'server', 'admin').use(admitPasswordCalls()),
    'POST /auth/password/reset',
    'Set a new password with a reset code (signs the user out everywhere)',
    { input: schemas.passwordResetSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => passwordReset.resetPassword(ctx.deps, ctx.auth, input.code, input.password, ctx.ip))),

  otpSendSignInCode: op(
    signInProcedure('client'),
    'POST /auth/otp/send-sign-in-code',
    'Email a magic link and a 6-character sign-in code (magic_link_enabled)',
    { input: schemas.otpSendSignInCodeSchema, output: schemas.otpSendSignInCodeResultSchema },
  ).mutation(({ ctx, input }) => magicLink.sendSignInCode(ctx.deps, ctx.auth, input.email, input.callback_url, ctx.ip)),

  otpSignIn: op(signInProcedure('client'), 'POST /auth/otp/sign-in', 'Sign in (or sign up) with a magic link code, or a typed code followed by the nonce', {
    input: schemas.otpSignInSchema,
    output: schemas.authResponseSchema,
  }).mutation(({ ctx, input }) => magicLink.signInWithCode(ctx.deps, ctx.auth, input.code, ctx.ip)),

  anonymousSignUp: op(
    signInProcedure('client'),
    'POST /auth/anonymous/sign-up',
    'Create an anonymous user (its tokens need x-latch-allow-anonymous-user: true)',
    { input: z.object({}), output: schemas.authResponseSchema },
  ).mutation(({ ctx }) => anonymous.signUpAnonymously(ctx.deps, ctx.auth, ctx.ip)),

  mfaSignIn: op(
    signInProcedure('client'),
    'POST /auth/mfa/sign-in',
    'Finish a sign-in that answered MULTI_FACTOR_AUTHENTICATION_REQUIRED: the attempt code and a TOTP (or recovery) code',
    { input: mfaSignInSchema, output: schemas.authResponseSchema },
  ).mutation(({ ctx, input }) => mfa.signInWithMfa(ctx.deps, ctx.auth, input, ctx.ip)),

  impersonationCreateCode: op(
    serverProcedure,
    'POST /auth/impersonation/codes',
    "A single-use code (60 s) that opens an impersonation session of a user in the app's /handler/impersonate page",
    { input: impersonationSchemas.impersonationCodeCreateSchema, output: impersonationSchemas.impersonationCodeSchema, successStatus: 201 },
  ).mutation(({ ctx, input }) => impersonation.createImpersonationCode(ctx.deps, ctx.auth, input)),

  impersonationSignIn: op(
    signInProcedure('client'),
    'POST /auth/impersonation/sign-in',
    'Start an impersonation session with a code from POST /auth/impersonation/codes',
    {
      input: impersonationSchemas.impersonationSignInSchema,
      output: schemas.authResponseSchema,
    },
  ).mutation(({ ctx, input }) => impersonation.signInWithImpersonationCode(ctx.deps, ctx.auth, input.code, ctx.ip)),

  cliCreate: op(signInProcedure('client'), 'POST /auth/cli', 'Start a CLI login: a polling code for the CLI, a login code for the confirm page', {
    input: cliSchemas.cliCreateSchema,
    output: cliSchemas.cliCreateResultSchema,
  }).mutation(({ ctx, input }) => cli.createCliLogin(ctx.deps, ctx.auth, input.expires_in_millis, ctx.ip)),

  cliPoll: op(
    signInProcedure('client'),
    'POST /auth/cli/poll',
    'Poll a CLI login: 200 waiting, 201 success with a new refresh token (once); at most one poll a second per code',
    {
      input: cliSchemas.cliPollSchema,
      output: cliSchemas.cliPollResultSchema,
      successStatusOf: (data) => ((data as { status?: string }).status === 'success' ? 201 : 200),
    },
  ).mutation(({ ctx, input }) => cli.pollCliLogin(ctx.deps, ctx.auth, input.polling_code, ctx.ip)),

  cliComplete: op(
    clientProcedure,
    'POST /auth/cli/complete',
    "The confirm page: check, approve (mode 'complete', a new session for the CLI) or deny a CLI login",
    { input: cliSchemas.cliCompleteSchema, output: cliSchemas.cliCompleteResultSchema },
  ).mutation(({ ctx, input }) => cli.completeCliLogin(ctx.deps, ctx.auth, input)),
  passkeyInitiateRegistration: op(
    clientProcedure,
    'POST /auth/passkey/initiate-passkey-registration',
    "Start adding a passkey to the signed-in user: WebAuthn creation options (rp.id is the placeholder the client replaces with its hostname) and the challenge's code",
    { input: z.object({}), output: passkeySchemas.passkeyCeremonySchema },
  ).mutation(({ ctx }) => passkey.initiateRegistration(ctx.deps, ctx.auth)),

  passkeyRegister: op(
    clientProcedure,
    'POST /auth/passkey/register',
    "Finish adding a passkey: the browser's registration response and the challenge's code (the origin must be a trusted domain)",
    { input: passkeySchemas.passkeyRegisterSchema, output: passkeySchemas.passkeySchema },
  ).mutation(({ ctx, input }) => passkey.register(ctx.deps, ctx.auth, input.credential, input.code, input.name, ctx.ip)),

  passkeyInitiateAuthentication: op(
    signInProcedure('client'),
    'POST /auth/passkey/initiate-passkey-authentication',
    "Start a passkey sign-in: WebAuthn request options for any discoverable credential, and the challenge's code",
    { input: z.object({}), output: passkeySchemas.passkeyCeremonySchema },
  ).mutation(({ ctx }) => passkey.initiateAuthentication(ctx.deps, ctx.auth, ctx.ip)),

  passkeySignIn: op(
    signInProcedure('client'),
    'POST /auth/passkey/sign-in',
    "Sign in with a passkey: the browser's authentication response and the challenge's code",
    { input: passkeySchemas.passkeySignInSchema, output: schemas.authResponseSchema },
  ).mutation(({ ctx, input }) => passkey.signIn(ctx.deps, ctx.auth, input.authentication_response, input.code, ctx.ip)),
});
