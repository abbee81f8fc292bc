/** `/auth/anonymous/sign-up`: a user with no address and no password (its tokens need x-latch-allow-anonymous-user). */
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { limitSignUp } from '../rate-limits/service.js';
import { findUser } from '../users/queries.js';
import { insertUserWithEmail } from '../users/service.js';
import { type AuthResponse, completeSignIn, signInTransaction } from './sign-in.js';

export async function signUpAnonymously(deps: Deps, auth: AuthContext, ip: string | null): Promise<AuthResponse> {
  if (!auth.project.config.anonymous_enabled) throw new KnownErrors.AnonymousAccountsNotEnabled();
  await limitSignUp(deps, auth.tenancy, ip, { withPassword: false });
  return signInTransaction(deps, async (trx) => {
    const user = await insertUserWithEmail(trx, deps, auth.tenancy, auth.project.config, {
      primaryEmail: null,
      primaryEmailVerified: false,
      primaryEmailAuthEnabled: false,
      passwordHash: null,
      isAnonymous: true,
      displayName: null,
    });
    const fresh = (await findUser(trx, auth.tenancy.id, user.id)) ?? user;
    return completeSignIn(deps, trx, { tenancy: auth.tenancy, user: fresh, method: 'anonymous', isNewUser: true, ip });
  });
}
