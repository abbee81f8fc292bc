import { isUniqueViolation } from '../../db/errors.js';
import type { KnownError } from '../../../contract/errors/known-error.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { Tenancy } from '../../access/context.js';
import type { Executor } from '../../db/executor.js';
import { signOutEverywhere } from '../sessions/service.js';
import { updateUser } from '../users/queries.js';
import { deletePasskeysOfUser } from '../passkeys/queries.js';
import * as q from './queries.js';
import { clearTotpSurroundings } from '../mfa/queries.js';

/**
 * Who owns a sign-in address (ARCHITECTURE.md, "Security model"; issue 13 item 1).
 *
 * - A **verified** sign-in address is an identity: at most one per project (unique index), and it
 *   alone answers to the address once it exists.
 * - An **unverified** sign-in address is a claim. Only sign-up (and the server) make claims; a
 *   client cannot mark an address it has not proven as a sign-in address. Claims never block a
 *   sign-up: several accounts may claim one address, and only the newest answers to it (its own
 *   password signs it in; contact-channels/queries.ts, findAuthChannel).
 * - **Proving** an address (a code sent to it: verification, password reset, magic link) settles
 *   it: every other account's claim on it is removed. When the proof is shown by someone who does
 *   not hold the account (reset and magic link need no session) and the account's holder never
 *   proved the address, whatever sign-in credentials the account held before are revoked first:
 *   password, TOTP, every session, every user API key and team key the user made, every other
 *   sign-in address. The prover gets the account with nothing the claimant set still working (the
 *   "revoke" branch of the issue; Clerk drops the unverified claimant's hold on the address, and
 *   Stack refuses such a sign-in with USER_EMAIL_ALREADY_EXISTS instead).
 * - A verification link opened without a session of its account (a bare code) verifies the
 *   address but is not the holder's proof (verified_by_holder false): an attacker who gets the
 *   address's owner to click their link gains a verified address, but the owner's next reset or
 *   magic link still strips the attacker's credentials.
 */

/** Rewrites the user's copy of the primary channel (or clears it when there is none). */
export async function syncPrimaryEmail(trx: Executor, tenancy: Tenancy, userId: string): Promise<void> {
  const primary = await q.findPrimaryChannel(trx, tenancy.id, userId);
  await updateUser(trx, tenancy.id, userId, {
    primary_email: primary?.value ?? null,
    primary_email_verified: primary?.is_verified ?? false,
    auth_with_email: primary?.used_for_auth ?? false,
  });
}

/**
 * Refuses a new sign-in address that someone else already holds: with `anyClaim` (the server,
 * which is told about every conflict) an unverified claim counts too; without it (an end user's
 * sign-up) only a verified holder does. The unique index still decides races between verified
 * addresses; two unverified claims that race past this check are harmless (claims coexist).
 */
export async function assertAddressFree(
  trx: Executor,
  tenancyId: string,
  value: string,
  userId: string | null,
  options: { anyClaim: boolean },
  conflict: () => KnownError,
): Promise<void> {
  if (await q.findOtherAuthChannel(trx, tenancyId, 'email', value, userId, options)) throw conflict();
}

/** The address is proven on `userId`'s channel: every other account's unverified claim on it loses it. */
export async function settleProvenAddress(trx: Executor, tenancy: Tenancy, channel: { user_id: string; value: string; type: string }): Promise<void> {
  const removed = await q.deleteUnverifiedClaims(trx, tenancy.id, channel.type, channel.value, channel.user_id);
  for (const userId of new Set(removed.filter((row) => row.is_primary).map((row) => row.user_id))) await syncPrimaryEmail(trx, tenancy, userId);
}

/**
 * Revokes every credential of the account except the channel being proven: sessions, user API
 * keys and team keys the user made, password (unless `keepPassword`: a reset sets the prover's
 * own), TOTP (with its recovery codes), passkeys, and the other sign-in addresses (they stay as contact addresses).
 */
async function stripCredentials(trx: Executor, tenancy: Tenancy, userId: string, keepChannelId: string, options: { keepPassword: boolean }): Promise<void> {
  await signOutEverywhere(trx, tenancy, userId, null);
  await q.disableOtherAuthChannels(trx, tenancy.id, userId, keepChannelId);
  await updateUser(trx, tenancy.id, userId, {
    ...(options.keepPassword ? {} : { password_hash: null }),
    totp_secret_encrypted: null,
    requires_totp_mfa: false,
    passkey_auth_enabled: false,
  });
  await clearTotpSurroundings(trx, tenancy.id, userId);
  // The claimant's passkeys are credentials like the password: they go too.
  await deletePasskeysOfUser(trx, tenancy.id, userId);
}

/**
 * Marks a channel verified: whoever showed the code reads its mailbox. `prover` says who that is:
 * - `holder`: a live session of the account, or the server. Nothing else to check.
 * - `stranger`: nothing but the code, and the proof signs them in or sets the password (reset,
 *   magic link). If the account had not been proven by its holder, everything the claimant set is
 *   revoked first (see the top of this file); after that the prover is the holder.
 * - `bare`: nothing but the code, and the proof signs nobody in (a verification link opened where
 *   the account is not signed in: perhaps by the address's owner, clicking a link an attacker
 *   asked for). The address is verified, but not by the holder (verified_by_holder false): the
 *   next stranger's proof still strips the account.
 * Every proof removes other accounts' unverified claims on the address. Returns whether anything
 * was stripped. The caller holds the user row lock.
 */
export async function proveChannel(
  trx: Executor,
  tenancy: Tenancy,
  channel: q.ContactChannelRow,
  prover: 'holder' | 'stranger' | 'bare',
  options: { keepPassword?: boolean } = {},
): Promise<{ stripped: boolean }> {
  const provenByHolder = channel.is_verified && channel.verified_by_holder;
  const stripped = prover === 'stranger' && !provenByHolder;
  if (stripped) await stripCredentials(trx, tenancy, channel.user_id, channel.id, { keepPassword: options.keepPassword ?? false });
  const verifiedByHolder = prover === 'bare' ? provenByHolder : true;
  if (!channel.is_verified || channel.verified_by_holder !== verifiedByHolder) {
    try {
      await q.updateChannel(trx, tenancy.id, channel.user_id, channel.id, { is_verified: true, verified_by_holder: verifiedByHolder });
    } catch (error) {
      // Someone else proved the address for their account in the meantime.
      if (isUniqueViolation(error, 'contact_channels_verified_auth_idx'))
        throw new KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse('email', channel.value);
      throw error;
    }
  }
  await settleProvenAddress(trx, tenancy, channel);
  // The user's copy: the primary may have been verified or stopped signing in (stripped).
  await syncPrimaryEmail(trx, tenancy, channel.user_id);
  return { stripped };
}
