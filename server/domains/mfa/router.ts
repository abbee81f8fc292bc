/**
 * TOTP MFA of a user (`/users/{user_id}/mfa/*`; enrolment and recovery codes only for `me`). The
 * second sign-in step itself is `/auth/mfa/sign-in` (auth/mfa.ts, in the auth router).
 */
import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure } from '../../trpc/procedures.js';
import { successSchema, uuidSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/mfa.js';
import * as service from './service.js';

const op = restOperations(['MFA']);
const userIdParam = z.object({ user_id: z.union([z.literal('me'), uuidSchema]) });

export const mfaRouter = router({
  status: op(clientProcedure, 'GET /users/{user_id}/mfa', "A user's TOTP MFA: on or off, enrolment pending, recovery codes left and last used", {
    input: userIdParam,
    output: schemas.mfaStatusSchema,
  }).query(({ ctx, input }) => service.getMfaStatus(ctx.deps, ctx.auth, input.user_id)),

  startTotpEnrollment: op(
    clientProcedure,
    'POST /users/me/mfa/totp/enroll',
    'Start TOTP enrolment: a new secret and its otpauth:// URI, pending until confirmed (with MFA on: a TOTP code, a recovery code or a sign-in in the last 5 minutes)',
    { input: schemas.mfaProofSchema, output: schemas.totpEnrollmentSchema },
  ).mutation(({ ctx, input }) => service.startTotpEnrollment(ctx.deps, ctx.auth, input, ctx.ip)),

  confirmTotpEnrollment: op(
    clientProcedure,
    'POST /users/me/mfa/totp/confirm',
    'Confirm TOTP enrolment with a current code: MFA is on, and 10 recovery codes are returned once',
    { input: schemas.totpConfirmSchema, output: schemas.recoveryCodesSchema },
  ).mutation(({ ctx, input }) => service.confirmTotpEnrollment(ctx.deps, ctx.auth, input.totp, ctx.ip)),

  disableTotp: op(
    clientProcedure,
    'POST /users/{user_id}/mfa/totp/disable',
    'Turn TOTP MFA off (clients: with a TOTP code, a recovery code or a sign-in in the last 5 minutes; server and admin: a reset)',
    { input: schemas.mfaProofSchema.extend(userIdParam.shape), output: successSchema },
  ).mutation(
    succeedAfter(({ ctx, input }) => {
      const { user_id, ...proof } = input;
      return service.disableTotp(ctx.deps, ctx.auth, user_id, proof, ctx.ip);
    }),
  ),

  regenerateRecoveryCodes: op(
    clientProcedure,
    'POST /users/me/mfa/recovery-codes',
    'Replace the recovery codes (shown once; needs a TOTP code, a recovery code or a sign-in in the last 5 minutes)',
    { input: schemas.mfaProofSchema, output: schemas.recoveryCodesSchema },
  ).mutation(({ ctx, input }) => service.regenerateRecoveryCodes(ctx.deps, ctx.auth, input, ctx.ip)),
});
