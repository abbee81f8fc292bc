/**
 * `/auth/mfa/sign-in`: the second step of a sign-in the MFA gate stopped (auth/sign-in.ts). The
 * attempt code names what the first factor established; a TOTP code (or a recovery code) for that
 * user completes it through the sign-in seam, with the first factor's is_new_user.
 */
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { KnownError } from '../../../contract/errors/known-error.js';
import type { AuthContext } from '../../access/context.js';
import { lockUser } from '../contact-channels/queries.js';
import { MFA_SIGN_IN_PURPOSE, type MfaAttemptData, type SecondFactor, useSecondFactor } from '../mfa/service.js';
import { checkSecondFactorFailures, recordSecondFactorFailure } from '../rate-limits/service.js';
import { findUser } from '../users/queries.js';
import { checkCode, limitCodeChecks, markCodeUsed } from '../verification/service.js';
import { type AuthResponse, completeSignIn, holdSignInRefusal, settleSignIn, type SignInMethod } from './sign-in.js';

/**
 * Exchanges an attempt code and a second factor for the session. The attempt code is checked
 * first (not found / used / expired / out of tries: the verification-code errors); each check
 * counts one of its MFA_ATTEMPT_MAX_TRIES, and a wrong second factor (INVALID_TOTP_CODE) is
 * committed as a used try, so the cap holds, and as one of the user's failures (the per-user
 * lock-out across attempt codes, rate-limits/service.ts). A right one uses the attempt code up.
 */
export async function signInWithMfa(
  deps: Deps,
  auth: AuthContext,
  input: { type: 'totp' | 'recovery_code'; totp?: string; recovery_code?: string; code: string },
  ip: string | null,
): Promise<AuthResponse> {
  await limitCodeChecks(deps, auth.tenancy, ip);
  const factor: SecondFactor | null =
    input.type === 'totp'
      ? input.totp !== undefined
        ? { totp: input.totp }
        : null
      : input.recovery_code !== undefined
        ? { recovery_code: input.recovery_code }
        : null;
  const outcome = await deps.db.transaction().execute((trx) =>
    holdSignInRefusal(trx, async (): Promise<{ ok: true; response: AuthResponse } | { ok: false; error: KnownError }> => {
      const verified = await checkCode<MfaAttemptData>(trx, auth.tenancy, MFA_SIGN_IN_PURPOSE, input.code);
      const userId = verified.data.user_id;
      const user = (await lockUser(trx, auth.tenancy.id, userId)) ? await findUser(trx, auth.tenancy.id, userId) : undefined;
      if (!user) throw new KnownErrors.VerificationCodeNotFound();
      await checkSecondFactorFailures(trx, auth.tenancy, user.id);
      let kind: 'totp' | 'recovery_code';
      try {
        if (!factor) throw new KnownErrors.InvalidTotpCode();
        kind = await useSecondFactor(deps, trx, auth.tenancy, user, factor);
      } catch (error) {
        // Committed: the try counted by checkCode stays counted, and so does the user's failure.
        if (error instanceof KnownErrors.InvalidTotpCode) {
          await recordSecondFactorFailure(trx, auth.tenancy, user.id);
          return { ok: false, error };
        }
        throw error;
      }
      await markCodeUsed(trx, auth.tenancy, verified.id);
      const response = await completeSignIn(deps, trx, {
        tenancy: auth.tenancy,
        user,
        method: verified.data.method as SignInMethod,
        isNewUser: verified.data.is_new_user,
        ip,
        secondFactor: kind,
      });
      return { ok: true, response };
    }),
  );
  const result = settleSignIn(outcome);
  if (!result.ok) throw result.error;
  return result.response;
}
