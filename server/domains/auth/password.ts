/** The email + password way in (`/auth/password/sign-up`, `/sign-in`, `/update`, `/set`); the reset-code flow is password-reset.ts. */
import type { Deps } from '../../deps.js';
import { hashPassword, verifyPassword } from '../../crypto/passwords.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { liveSession } from '../../access/policy.js';
import { limitEmailProbes, limitPasswordHashing, limitSignIn, limitSignUp } from '../rate-limits/service.js';
import { findPrimaryChannel } from '../contact-channels/queries.js';
import { queueVerificationEmail } from '../contact-channels/service.js';
import { assertTrustedCallbackUrl } from '../verification/service.js';
import { assertAddressFree } from '../contact-channels/claims.js';
import { deleteSessionsOfUser } from '../sessions/queries.js';
import { signOutEverywhere } from '../sessions/service.js';
import { type AuthResponse, completeSignIn, signInTransaction } from './sign-in.js';
import { findSessionUser, findUserByAuthEmail, replacePrimaryEmail, updateUser } from '../users/queries.js';
import { checkPasswordRequirements, insertUserWithEmail } from '../users/service.js';
import { isUniqueViolation } from '../../db/errors.js';
import { randomUUID } from 'node:crypto';

/**
 * Email + password sign-up. The address stays an unverified claim until a code sent to it is used:
 * it signs its account in with this password, but it refuses no later sign-up with the same
 * address (only an address some account has proven does: USER_EMAIL_ALREADY_EXISTS), and the
 * newest claim is the one the address answers to (contact-channels/claims.ts). Honours
 * sign_up_enabled and credential_enabled (server code can still create users). With verification_callback_url (a trusted URL) the verification email is queued
 * with the new user. The password is hashed before any row is touched, so a duplicate email costs the
 * same time as a new one. An anonymous caller is upgraded in place and keeps its data.
 */
export async function signUpWithPassword(
  deps: Deps,
  auth: AuthContext,
  email: string,
  password: string,
  ip: string | null,
  verificationCallbackUrl?: string,
): Promise<AuthResponse> {
  const config = auth.project.config;
  if (!config.sign_up_enabled) throw new KnownErrors.SignUpNotEnabled();
  if (!config.credential_enabled) throw new KnownErrors.PasswordAuthenticationNotEnabled();
  if (verificationCallbackUrl !== undefined) assertTrustedCallbackUrl(auth.project, verificationCallbackUrl);
  checkPasswordRequirements(password);
  const probe = await limitEmailProbes(deps, auth.tenancy, ip);
  await limitSignUp(deps, auth.tenancy, ip, { withPassword: true });
  const passwordHash = await hashPassword(password, auth);
  // signInTransaction: an upgrade of an anonymous user with MFA on commits before the gate's refusal.
  return signInTransaction(deps, async (trx) => {
    // Locked: of concurrent upgrades of one anonymous user, the first wins and the others find its
    // session gone (and sign up as new users) instead of tripping over its new email channel.
    const anonymous = auth.user?.is_anonymous
      ? await findSessionUser(trx, auth.tenancy.id, auth.user.sub, auth.user.refresh_token_id, { forUpdate: true })
      : undefined;
    let user;
    if (anonymous?.is_anonymous) {
      // Only a proven address refuses a sign-up (contact-channels/claims.ts).
      await assertAddressFree(trx, auth.tenancy.id, email, anonymous.id, { anyClaim: false }, () => new KnownErrors.UserWithEmailAlreadyExists(email));
      try {
        await replacePrimaryEmail(trx, auth.tenancy.id, anonymous.id, { id: randomUUID(), value: email, is_verified: false, used_for_auth: true });
      } catch (error) {
        if (isUniqueViolation(error)) throw new KnownErrors.UserWithEmailAlreadyExists(email);
        throw error;
      }
      user = await updateUser(trx, auth.tenancy.id, anonymous.id, {
        is_anonymous: false,
        password_hash: passwordHash,
        primary_email: email,
        primary_email_verified: false,
        auth_with_email: true,
        // A sign-in address: magic links to it work, like for any new account (users/service.ts).
        otp_auth_enabled: true,
      });
      // The anonymous session's tokens carry the anonymous audience; issue fresh ones.
      await deleteSessionsOfUser(trx, auth.tenancy.id, anonymous.id, null);
    } else {
      user = await insertUserWithEmail(trx, deps, auth.tenancy, config, {
        primaryEmail: email,
        primaryEmailVerified: false,
        primaryEmailAuthEnabled: true,
        passwordHash,
        isAnonymous: false,
        // An end user's sign-up: only a proven address refuses it, never someone's unverified claim.
        refuseOverUnverifiedClaims: false,
      });
    }
    if (!user) throw new KnownErrors.UserNotFound();
    // With a verification_callback_url, the verification email commits with the new user.
    if (verificationCallbackUrl !== undefined) {
      const channel = await findPrimaryChannel(trx, auth.tenancy.id, user.id);
      if (channel) await queueVerificationEmail(trx, deps, auth, channel, verificationCallbackUrl);
    }
    return completeSignIn(deps, trx, { tenancy: auth.tenancy, user, method: 'password', isNewUser: true, ip });
  }).catch(async (error: unknown) => {
    if (error instanceof KnownErrors.UserWithEmailAlreadyExists) await probe.revealed();
    throw error;
  });
}

/**
 * Email + password sign-in. Unknown email, user without password and wrong password all cost one
 * argon2id verification and end in the same EMAIL_PASSWORD_MISMATCH: no enumeration by message,
 * status or timing. Imported bcrypt hashes are upgraded to argon2id on success. Failures are
 * limited per email and per IP (RATE_LIMITED, rate-limits/service.ts), before any lookup: past
 * the limit even the right password is refused until the window ends; the IP's password-hashing
 * budget is counted in the same statement.
 */
export async function signInWithPassword(deps: Deps, auth: AuthContext, email: string, password: string, ip: string | null): Promise<AuthResponse> {
  if (!auth.project.config.credential_enabled) throw new KnownErrors.PasswordAuthenticationNotEnabled();
  // The sign-in limits and the IP's hashing budget, in one statement (rate-limits/service.ts).
  const attempt = await limitSignIn(deps, auth.tenancy, email, ip);
  const user = await findUserByAuthEmail(deps.db, auth.tenancy.id, email);
  let check;
  try {
    check = await verifyPassword(password, user?.password_hash ?? null, auth);
  } catch (error) {
    // Not verified (its turn never came, or its client left): not a failure of this address either.
    if (error instanceof KnownErrors.RateLimited) await attempt.succeeded();
    throw error;
  }
  if (!user || !check.ok) throw new KnownErrors.EmailPasswordMismatch();
  await attempt.succeeded();
  if (check.needsRehash) await updateUser(deps.db, auth.tenancy.id, user.id, { password_hash: await hashPassword(password, auth) });
  return completeSignIn(deps, deps.db, { tenancy: auth.tenancy, user, method: 'password', isNewUser: false, ip });
}

/** Changes the password; every other session of the user is signed out, and their API keys revoked. */
export async function updatePassword(deps: Deps, auth: AuthContext, oldPassword: string, newPassword: string, ip: string | null): Promise<void> {
  const { user, sessionId } = await liveSession(deps, auth);
  if (!user.password_hash) throw new KnownErrors.UserDoesNotHavePassword();
  checkPasswordRequirements(newPassword);
  await limitPasswordHashing(deps, auth.tenancy, ip);
  const check = await verifyPassword(oldPassword, user.password_hash, auth);
  if (!check.ok) throw new KnownErrors.PasswordConfirmationMismatch();
  const hash = await hashPassword(newPassword, auth);
  await deps.db.transaction().execute(async (trx) => {
    await updateUser(trx, auth.tenancy.id, user.id, { password_hash: hash });
    await signOutEverywhere(trx, auth.tenancy, user.id, sessionId);
  });
}

/** Sets a first password for a user who has none (signed up by OAuth, magic link, or the server). */
export async function setPassword(deps: Deps, auth: AuthContext, password: string, ip: string | null): Promise<void> {
  const { user } = await liveSession(deps, auth);
  if (user.password_hash) throw new KnownErrors.UserAlreadyHasPassword();
  checkPasswordRequirements(password);
  await limitPasswordHashing(deps, auth.tenancy, ip);
  await updateUser(deps.db, auth.tenancy.id, user.id, { password_hash: await hashPassword(password, auth) });
}
