import type { Deps } from '../../deps.js';
import { hashPassword } from '../../crypto/passwords.js';
import { DurationFloor, withAdaptiveMinimum } from '../../crypto/timing.js';
import { randomSecret } from '../../crypto/tokens.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { proveChannel } from '../contact-channels/claims.js';
import { findAuthChannel, findChannel, lockUser } from '../contact-channels/queries.js';
import { limitResetRequest } from '../emails/limits.js';
import { brandingOf, queueEmail } from '../emails/service.js';
import { clearSignInFailures, limitPasswordHashing } from '../rate-limits/service.js';
import { renderEmail } from '../emails/render.js';
import { signOutEverywhere } from '../sessions/service.js';
import { updateUser } from '../users/queries.js';
import { checkPasswordRequirements } from '../users/service.js';
import { assertTrustedCallbackUrl, codeLink, createCode, deleteUnusedCodesOfUser, limitCodeChecks, linkWithCode, withCode } from '../verification/service.js';

/** The verification_codes purpose of password reset links. */
export const PASSWORD_RESET_PURPOSE = 'password_reset';
/**
 * Every answer to a reset request takes at least this long. An unknown address writes nothing and
 * a known one a code and an email, which measured 10.3 ms against 7.8 ms (median) on PGlite: a
 * timing oracle on whether the account exists. The floor sits well above both on a quiet machine;
 * under load (or with a slow owner template) each project's floor rises with its known-address
 * answers' recent median time (resetFloorOf).
 */
export const RESET_REQUEST_FLOOR_MILLIS = 50;
/** However slow the recent answers were, none is padded past this. */
const RESET_REQUEST_FLOOR_MAX_MILLIS = 2_000;
/** Projects whose floor has risen; one that settles back to the minimum is let go. */
const resetFloors = new Map<string, DurationFloor>();
const RESET_FLOORS_MAX = 10_000;

/**
 * The project's padding: per tenancy, so one project's slow template or burst does not slow
 * another's answers, and a known address of one cannot be told by the timing of another's.
 */
function resetFloorOf(tenancyId: string): DurationFloor {
  let floor = resetFloors.get(tenancyId);
  if (floor && floor.settled()) {
    resetFloors.delete(tenancyId);
    floor = undefined;
  }
  if (!floor) {
    if (resetFloors.size >= RESET_FLOORS_MAX) resetFloors.delete(resetFloors.keys().next().value!);
    floor = new DurationFloor(RESET_REQUEST_FLOOR_MILLIS, RESET_REQUEST_FLOOR_MAX_MILLIS);
    resetFloors.set(tenancyId, floor);
  }
  return floor;
}
/** A reset link works for an hour. */
export const PASSWORD_RESET_TTL_MILLIS = 60 * 60 * 1000;

interface ResetData {
  user_id: string;
  /** The auth channel the link was sent to, and its address then. */
  contact_channel_id: string;
  value: string;
}

/**
 * Emails a password reset link to the account that signs in with `email`, if there is one. The
 * answer is the same either way (no user enumeration): every request counts against the project's
 * hourly limit, known address or not (limitPasswordResetRequests; the outbox count that limits other
 * emails would count only the known ones), an unknown address costs the same rendering work as a
 * known one, and both answers are padded to the project's floor (at least RESET_REQUEST_FLOOR_MILLIS,
 * more while its recent answers were slower) so the known one's writes do not show in the time taken.
 */
export async function sendResetCode(deps: Deps, auth: AuthContext, email: string, callbackUrl: string, ip: string | null = null): Promise<void> {
  const config = auth.project.config;
  if (!config.credential_enabled) throw new KnownErrors.PasswordAuthenticationNotEnabled();
  assertTrustedCallbackUrl(auth.project, callbackUrl);
  await withAdaptiveMinimum(resetFloorOf(auth.tenancy.id), async (slowPath) => {
    // Per IP and recipient, then the client share (emails/limits.ts), for every request alike.
    await limitResetRequest(deps, auth, email, ip);
    await deps.db.transaction().execute(async (trx) => {
      const channel = await findAuthChannel(trx, auth.tenancy.id, 'email', email);
      if (!channel) {
        await renderEmail(brandingOf(auth.project), { type: 'password-reset', link: linkWithCode(callbackUrl, randomSecret()), expiresAt: new Date() });
        return;
      }
      slowPath();
      const data: ResetData = { user_id: channel.user_id, contact_channel_id: channel.id, value: channel.value };
      const issued = await createCode(trx, auth.tenancy, PASSWORD_RESET_PURPOSE, data, PASSWORD_RESET_TTL_MILLIS);
      await queueEmail(trx, deps, auth, channel.value, { type: 'password-reset', ...codeLink(callbackUrl, issued) }, { limitedByCaller: true });
    });
  });
}

/** Whether a reset code is valid, without using it (counts as an attempt). */
export async function checkResetCode(deps: Deps, auth: AuthContext, code: string, ip: string | null): Promise<{ is_code_valid: true }> {
  await limitCodeChecks(deps, auth.tenancy, ip);
  await withCode<ResetData, void>(deps.db, auth.tenancy, PASSWORD_RESET_PURPOSE, code, 'check', async (trx, verified) => {
    if (!(await lockUser(trx, auth.tenancy.id, verified.data.user_id))) throw new KnownErrors.VerificationCodeNotFound();
  });
  return { is_code_valid: true };
}

/**
 * Sets a new password with a reset code and signs the user out everywhere: whoever had a session
 * or an API key (perhaps the reason for the reset) loses it. The link proved the user reads that
 * mailbox, so the channel it went to is verified too; if it was not verified before, whoever
 * claimed the address may have set more than the password, so everything they could sign in with
 * goes (contact-channels/claims.ts, proveChannel), and other accounts' claims on the address are
 * removed. A link whose address left the account since is CODE_NOT_FOUND. Other reset links of the
 * user stop working, and the address's failed password sign-ins are forgotten.
 */
export async function resetPassword(deps: Deps, auth: AuthContext, code: string, password: string, ip: string | null): Promise<void> {
  if (!auth.project.config.credential_enabled) throw new KnownErrors.PasswordAuthenticationNotEnabled();
  checkPasswordRequirements(password);
  await limitCodeChecks(deps, auth.tenancy, ip);
  await limitPasswordHashing(deps, auth.tenancy, ip);
  const passwordHash = await hashPassword(password, auth);
  const address = await withCode<ResetData, string>(deps.db, auth.tenancy, PASSWORD_RESET_PURPOSE, code, 'consume', async (trx, verified) => {
    const userId = verified.data.user_id;
    if (!(await lockUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.VerificationCodeNotFound();
    const channel = await findChannel(trx, auth.tenancy.id, userId, verified.data.contact_channel_id);
    if (!channel || channel.value.toLowerCase() !== verified.data.value.toLowerCase()) throw new KnownErrors.VerificationCodeNotFound();
    await proveChannel(trx, auth.tenancy, channel, 'stranger', { keepPassword: true });
    await updateUser(trx, auth.tenancy.id, userId, { password_hash: passwordHash });
    await signOutEverywhere(trx, auth.tenancy, userId, null);
    await deleteUnusedCodesOfUser(trx, auth.tenancy, PASSWORD_RESET_PURPOSE, userId);
    return channel.value;
  });
  await clearSignInFailures(deps, auth.tenancy, address);
}
