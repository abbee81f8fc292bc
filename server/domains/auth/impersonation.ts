/**
 * Impersonation by link (README "Impersonation"). The console asks for a code for one user
 * (`POST /auth/impersonation/codes`, server or admin access), then opens the host app's
 * /handler/impersonate?code=… in a new tab; that page exchanges the code for a session
 * (`POST /auth/impersonation/sign-in`, client access) marked `is_impersonation` in the user's
 * session list and in the session.created webhook. Stack Auth's console shows the owner a
 * snippet with raw tokens to paste; here nothing secret is shown, and the code is a verification
 * code like the others: 224 random bits stored hashed, single use, one attempt, 60 seconds.
 */
import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../access/context.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { IMPERSONATION_CODE_TTL_MILLIS, IMPERSONATION_SESSION_DEFAULT_MILLIS } from '../../../contract/schemas/impersonation.js';
import { createCode, limitCodeChecks, withCode } from '../verification/service.js';
import { findUser } from '../users/queries.js';
import { type AuthResponse, startSession } from './sign-in.js';

const PURPOSE = 'impersonation';

interface ImpersonationData {
  user_id: string;
  session_expires_in_millis: number;
}

/** `POST /auth/impersonation/codes`: a code that starts an impersonation session of `user_id`. */
export async function createImpersonationCode(
  deps: Deps,
  auth: AuthContext,
  input: { user_id: string; session_expires_in_millis?: number },
): Promise<{ code: string; user_id: string; expires_at_millis: number }> {
  const tenancy = auth.tenancy;
  const user = await findUser(deps.db, tenancy.id, input.user_id);
  if (!user) throw new KnownErrors.UserIdDoesNotExist(input.user_id);
  const data: ImpersonationData = {
    user_id: user.id,
    session_expires_in_millis: input.session_expires_in_millis ?? IMPERSONATION_SESSION_DEFAULT_MILLIS,
  };
  const issued = await createCode(deps.db, tenancy, PURPOSE, data, IMPERSONATION_CODE_TTL_MILLIS, { maxAttempts: 1 });
  return { code: issued.code, user_id: user.id, expires_at_millis: issued.expiresAt.getTime() };
}

/**
 * `POST /auth/impersonation/sign-in`: uses the code up and starts the session, in one transaction.
 * Through startSession, not the sign-in policy: the owner who made the code vouches for the user
 * (as with POST /auth/sessions), and nobody is there to answer an MFA challenge.
 */
export async function signInWithImpersonationCode(deps: Deps, auth: AuthContext, code: string, ip: string | null): Promise<AuthResponse> {
  const tenancy = auth.tenancy;
  await limitCodeChecks(deps, tenancy, ip);
  return withCode<ImpersonationData, AuthResponse>(deps.db, tenancy, PURPOSE, code, 'consume', async (trx, verified) => {
    const user = await findUser(trx, tenancy.id, verified.data.user_id);
    if (!user) throw new KnownErrors.UserIdDoesNotExist(verified.data.user_id);
    return startSession(deps, trx, {
      tenancy,
      user,
      method: 'impersonation',
      isNewUser: false,
      ip,
      isImpersonation: true,
      expiresInMillis: verified.data.session_expires_in_millis,
    });
  });
}
