/**
 * A user's passkeys (/passkeys): list, rename, delete. Several per user, each with a name and its
 * created and last-used times. Adding one is the registration ceremony (auth/passkey.ts).
 *
 * Deleting one from a client needs a fresh sign-in (the session behind the access token created
 * within PASSKEY_DELETE_MAX_SIGN_IN_AGE_SECONDS): a stolen access token must not be able to strip
 * the owner's passkeys. Server and admin callers (the project's backend, the console) may.
 */
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { resolveExistingUserId } from '../../access/policy.js';
import { lockUser } from '../contact-channels/queries.js';
import { findSessionSignedInAt } from '../sessions/queries.js';
import { updateUser } from '../users/queries.js';
import { type Passkey, toPasskeyDto } from './dto.js';
import * as q from './queries.js';

/** A client deletes a passkey only within this long of signing in (RECENT_SIGN_IN_REQUIRED otherwise). */
export const PASSKEY_DELETE_MAX_SIGN_IN_AGE_SECONDS = 300;

export async function listPasskeys(deps: Deps, auth: AuthContext, userIdParam: string | undefined): Promise<Passkey[]> {
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  return (await q.listPasskeys(deps.db, auth.tenancy.id, userId)).map(toPasskeyDto);
}

export async function renamePasskey(deps: Deps, auth: AuthContext, userIdParam: string, passkeyId: string, name: string): Promise<Passkey> {
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  const row = await q.renamePasskey(deps.db, auth.tenancy.id, userId, passkeyId, name);
  if (!row) throw new KnownErrors.PasskeyNotFound(passkeyId);
  return toPasskeyDto(row);
}

/** Deletes a passkey; the user's last one takes passkey sign-in (passkey_auth_enabled) with it. */
export async function deletePasskey(deps: Deps, auth: AuthContext, userIdParam: string, passkeyId: string): Promise<void> {
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  if (auth.type === 'client') {
    const signedInAt = auth.user ? await findSessionSignedInAt(deps.db, auth.tenancy.id, auth.user.refresh_token_id, userId) : undefined;
    if (!signedInAt) throw new KnownErrors.AccessTokenExpired();
    if (Date.now() - signedInAt.getTime() > PASSKEY_DELETE_MAX_SIGN_IN_AGE_SECONDS * 1000) {
      throw new KnownErrors.RecentSignInRequired(PASSKEY_DELETE_MAX_SIGN_IN_AGE_SECONDS);
    }
  }
  await deps.db.transaction().execute(async (trx) => {
    // Locked: two deletions of a user's last two passkeys both see what the other left.
    if (!(await lockUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
    if (!(await q.deletePasskey(trx, auth.tenancy.id, userId, passkeyId))) throw new KnownErrors.PasskeyNotFound(passkeyId);
    if ((await q.countPasskeys(trx, auth.tenancy.id, userId)) === 0) await updateUser(trx, auth.tenancy.id, userId, { passkey_auth_enabled: false });
  });
}
