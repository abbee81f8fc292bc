import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { DEFAULT_SESSION_MILLIS, startSession } from '../auth/sign-in.js';
import { findUser } from '../users/queries.js';

/**
 * `POST /auth/sessions`: a server key creates a session for one of its users (its own sign-in
 * flow, or impersonation with is_impersonation). It starts the session through the sign-in seam
 * (auth/sign-in.ts, startSession: what every new session does, audit and webhooks included) but
 * not through its sign-in policy: the policy judges an end user proving who they are (the
 * verified-email rule settles a proof, the MFA gate asks the person signing in for a second
 * factor), while here the holder of the secret server key vouches for the user, and nobody is
 * there to answer a challenge (the spec raises MultiFactorAuthenticationRequired only on a
 * credential sign-in).
 */
export async function createSessionForUser(
  deps: Deps,
  auth: AuthContext,
  input: { user_id: string; expires_in_millis?: number; is_impersonation?: boolean },
): Promise<{ access_token: string; refresh_token: string }> {
  const user = await findUser(deps.db, auth.tenancy.id, input.user_id);
  if (!user) throw new KnownErrors.UserIdDoesNotExist(input.user_id);
  const session = await startSession(deps, deps.db, {
    tenancy: auth.tenancy,
    user,
    method: 'server',
    isNewUser: false,
    ip: null,
    isImpersonation: input.is_impersonation ?? false,
    expiresInMillis: input.expires_in_millis ?? DEFAULT_SESSION_MILLIS,
  });
  return { access_token: session.access_token, refresh_token: session.refresh_token };
}
