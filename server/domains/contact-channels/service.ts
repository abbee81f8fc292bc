import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext, Tenancy } from '../../access/context.js';
import { type EmailSender, queueEmail } from '../emails/service.js';
import { liveSessionUserId, resolveExistingUserId } from '../../access/policy.js';
import type { Executor } from '../../db/executor.js';
import { limitEmailProbes } from '../rate-limits/service.js';
import { findSessionUser } from '../users/queries.js';
import { assertTrustedCallbackUrl, codeLink, createCode, limitCodeChecks, withCode } from '../verification/service.js';
import { assertAddressFree, proveChannel, settleProvenAddress, syncPrimaryEmail } from './claims.js';
import * as q from './queries.js';
import { type ContactChannel, toContactChannelDto } from './dto.js';

export { syncPrimaryEmail };
import type { contactChannelCreateSchema, contactChannelUpdateSchema } from '../../../contract/schemas/contact-channels.js';

/**
 * A user's contact channels (emails). The table is the source of truth; the user's primary_email,
 * primary_email_verified and auth_with_email are a copy of the primary channel for fast reads,
 * rewritten in the same transaction as every change that touches the primary channel. Every
 * change locks the user row first, so concurrent changes to one user's channels are serialized.
 */

/** The verification_codes purpose of email verification links. */
export const EMAIL_VERIFICATION_PURPOSE = 'contact_channel_verification';
/** A verification link works for a day. */
export const EMAIL_VERIFICATION_TTL_MILLIS = 24 * 60 * 60 * 1000;

interface VerificationData {
  user_id: string;
  contact_channel_id: string;
  /** The address the link was sent to: a channel whose value changed since is not verified by it. */
  value: string;
}

/** The 409s a channel write can run into, told apart by the unique index that refused it. */
function channelConflict(error: unknown, value: string): unknown {
  if (isUniqueViolation(error, 'contact_channels_user_value_idx')) return new KnownErrors.ContactChannelAlreadyExists('email', value);
  if (isUniqueViolation(error, 'contact_channels_verified_auth_idx')) return new KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse('email', value);
  return error;
}

function refuseServerOnly(auth: AuthContext, input: { is_verified?: boolean | undefined }): void {
  if (auth.type === 'client' && input.is_verified !== undefined) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - is_verified can only be set with server access (x-latch-access-type: server)', {
      issues: [{ path: 'is_verified', message: 'can only be set with server access' }],
    });
  }
}

/**
 * A client never makes an address it has not proven a sign-in address (issue 13 item 1): not by
 * adding it, not by switching used_for_auth on, not by changing the value of a sign-in address.
 * Otherwise anyone could attach someone else's address to their account and answer to it.
 * EMAIL_NOT_VERIFIED, before anything is looked up (the answer reveals nothing about the address).
 */
function refuseUnprovenAuth(auth: AuthContext, becomes: { used_for_auth: boolean; is_verified: boolean }, makesIt: boolean): void {
  if (auth.type === 'client' && makesIt && becomes.used_for_auth && !becomes.is_verified) throw new KnownErrors.EmailNotVerified();
}

/**
 * Runs a channel write whose CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE would tell a
 * client that an address has an account: that answer counts against the client's probe budget
 * (rate-limits/service.ts, limitEmailProbes) before it is given. Server calls are not counted.
 */
async function countingProbes<T>(deps: Deps, auth: AuthContext, ip: string | null, mayReveal: boolean, run: () => Promise<T>): Promise<T> {
  if (auth.type !== 'client' || !mayReveal) return run();
  const probe = await limitEmailProbes(deps, auth.tenancy, ip);
  try {
    return await run();
  } catch (error) {
    if (error instanceof KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse) await probe.revealed();
    throw error;
  }
}

/** Locks the user (USER_NOT_FOUND if they were deleted meanwhile) and finds one of their channels. */
async function lockedChannel(trx: Executor, tenancy: Tenancy, userId: string, channelId: string): Promise<q.ContactChannelRow> {
  if (!(await q.lockUser(trx, tenancy.id, userId))) throw new KnownErrors.UserNotFound();
  const channel = await q.findChannel(trx, tenancy.id, userId, channelId);
  if (!channel) throw new KnownErrors.ContactChannelNotFound(channelId);
  return channel;
}

export async function listChannels(deps: Deps, auth: AuthContext, userIdParam: string | undefined): Promise<ContactChannel[]> {
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  return (await q.listChannels(deps.db, auth.tenancy.id, userId)).map(toContactChannelDto);
}

export async function getChannel(deps: Deps, auth: AuthContext, userIdParam: string, channelId: string): Promise<ContactChannel> {
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  const channel = await q.findChannel(deps.db, auth.tenancy.id, userId, channelId);
  if (!channel) throw new KnownErrors.ContactChannelNotFound(channelId);
  return toContactChannelDto(channel);
}

export async function createChannel(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof contactChannelCreateSchema>,
  ip: string | null = null,
): Promise<ContactChannel> {
  refuseServerOnly(auth, input);
  const isVerified = input.is_verified ?? false;
  refuseUnprovenAuth(auth, { used_for_auth: input.used_for_auth, is_verified: isVerified }, true);
  const userId = await resolveExistingUserId(deps, auth, input.user_id);
  return countingProbes(deps, auth, ip, input.used_for_auth, () =>
    deps.db.transaction().execute(async (trx) => {
      if (!(await q.lockUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
      if (await q.findChannelByValue(trx, auth.tenancy.id, userId, 'email', input.value))
        throw new KnownErrors.ContactChannelAlreadyExists('email', input.value);
      // Only the server gets here with an unverified sign-in address: it is told about any claim.
      if (input.used_for_auth && !isVerified)
        await assertAddressFree(
          trx,
          auth.tenancy.id,
          input.value,
          userId,
          { anyClaim: true },
          () => new KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse('email', input.value),
        );
      if (input.is_primary) await q.clearPrimary(trx, auth.tenancy.id, userId);
      let row: q.ContactChannelRow;
      try {
        row = await q.insertChannel(trx, {
          tenancy_id: auth.tenancy.id,
          id: randomUUID(),
          user_id: userId,
          type: 'email',
          value: input.value,
          is_primary: input.is_primary ?? false,
          is_verified: isVerified,
          used_for_auth: input.used_for_auth,
        });
      } catch (error) {
        throw channelConflict(error, input.value);
      }
      // The server vouches for the address: other accounts' unverified claims on it lose it.
      if (row.is_verified) await settleProvenAddress(trx, auth.tenancy, row);
      if (row.is_primary) await syncPrimaryEmail(trx, auth.tenancy, userId);
      return toContactChannelDto(row);
    }),
  );
}

export async function updateChannel(
  deps: Deps,
  auth: AuthContext,
  userIdParam: string,
  channelId: string,
  input: z.infer<typeof contactChannelUpdateSchema>,
  ip: string | null = null,
): Promise<ContactChannel> {
  refuseServerOnly(auth, input);
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  // Only switching used_for_auth on can meet another account's proven address (a new value is unproven).
  return countingProbes(deps, auth, ip, input.used_for_auth === true, () =>
    deps.db.transaction().execute(async (trx) => {
      const current = await lockedChannel(trx, auth.tenancy, userId, channelId);
      const patch: Parameters<typeof q.updateChannel>[4] = {};
      const valueChanged = input.value !== undefined && input.value !== current.value;
      const newAddress = valueChanged && input.value!.toLowerCase() !== current.value.toLowerCase();
      if (valueChanged) {
        const clash = await q.findChannelByValue(trx, auth.tenancy.id, userId, 'email', input.value!);
        if (clash && clash.id !== current.id) throw new KnownErrors.ContactChannelAlreadyExists('email', input.value!);
        patch.value = input.value!;
        // A new address has not been verified, whatever the old one was (a different letter case is the same address).
        if (newAddress) patch.is_verified = false;
      }
      if (input.is_verified !== undefined) patch.is_verified = input.is_verified;
      if (input.used_for_auth !== undefined) patch.used_for_auth = input.used_for_auth;
      if (input.is_primary !== undefined && input.is_primary !== current.is_primary) {
        if (input.is_primary) await q.clearPrimary(trx, auth.tenancy.id, userId);
        patch.is_primary = input.is_primary;
      }
      const becomes = {
        used_for_auth: patch.used_for_auth ?? current.used_for_auth,
        is_verified: patch.is_verified ?? current.is_verified,
        value: patch.value ?? current.value,
      };
      const newlyAuth = becomes.used_for_auth && (!current.used_for_auth || newAddress);
      refuseUnprovenAuth(auth, becomes, newlyAuth);
      if (newlyAuth && !becomes.is_verified)
        await assertAddressFree(
          trx,
          auth.tenancy.id,
          becomes.value,
          userId,
          { anyClaim: true },
          () => new KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse('email', becomes.value),
        );
      let updated: q.ContactChannelRow | undefined;
      try {
        updated = await q.updateChannel(trx, auth.tenancy.id, userId, channelId, patch);
      } catch (error) {
        throw channelConflict(error, input.value ?? current.value);
      }
      if (!updated) throw new KnownErrors.ContactChannelNotFound(channelId);
      if (updated.is_verified && (!current.is_verified || newAddress)) await settleProvenAddress(trx, auth.tenancy, updated);
      if (current.is_primary || updated.is_primary) await syncPrimaryEmail(trx, auth.tenancy, userId);
      return toContactChannelDto(updated);
    }),
  );
}

export async function deleteChannel(deps: Deps, auth: AuthContext, userIdParam: string, channelId: string): Promise<void> {
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  await deps.db.transaction().execute(async (trx) => {
    await lockedChannel(trx, auth.tenancy, userId, channelId);
    const deleted = await q.deleteChannel(trx, auth.tenancy.id, userId, channelId);
    if (!deleted) throw new KnownErrors.ContactChannelNotFound(channelId);
    // Deleting the primary email leaves the user without one (another channel is not promoted silently).
    if (deleted.is_primary) await syncPrimaryEmail(trx, auth.tenancy, userId);
  });
}

/**
 * Issues a verification code for a channel and queues the email with the link, in the caller's
 * transaction (sign-up uses this too, so the user and the email commit together).
 */
export async function queueVerificationEmail(
  trx: Executor,
  deps: Deps,
  sender: EmailSender,
  channel: q.ContactChannelRow,
  callbackUrl: string,
  ip: string | null = null,
): Promise<void> {
  const data: VerificationData = { user_id: channel.user_id, contact_channel_id: channel.id, value: channel.value };
  const issued = await createCode(trx, sender.tenancy, EMAIL_VERIFICATION_PURPOSE, data, EMAIL_VERIFICATION_TTL_MILLIS);
  await queueEmail(trx, deps, sender, channel.value, { type: 'email-verification', ...codeLink(callbackUrl, issued) }, { ip });
}

/** Emails a verification link for one channel of a user; EMAIL_ALREADY_VERIFIED when there is nothing to verify. */
export async function sendChannelVerificationCode(
  deps: Deps,
  auth: AuthContext,
  userIdParam: string,
  channelId: string,
  callbackUrl: string,
  ip: string | null = null,
): Promise<void> {
  assertTrustedCallbackUrl(auth.project, callbackUrl);
  const userId = await resolveExistingUserId(deps, auth, userIdParam);
  await deps.db.transaction().execute(async (trx) => {
    const channel = await lockedChannel(trx, auth.tenancy, userId, channelId);
    if (channel.is_verified) throw new KnownErrors.EmailAlreadyVerified();
    await queueVerificationEmail(trx, deps, auth, channel, callbackUrl, ip);
  });
}

/** The signed-in user's variant: `email` must be one of their addresses (EMAIL_NOT_ASSOCIATED_WITH_USER), and the primary one (EMAIL_IS_NOT_PRIMARY_EMAIL). */
export async function sendPrimaryVerificationCode(deps: Deps, auth: AuthContext, email: string, callbackUrl: string, ip: string | null = null): Promise<void> {
  assertTrustedCallbackUrl(auth.project, callbackUrl);
  const userId = await liveSessionUserId(deps, auth);
  await deps.db.transaction().execute(async (trx) => {
    if (!(await q.lockUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
    // An address that is none of the user's channels is EMAIL_NOT_ASSOCIATED_WITH_USER; one of theirs
    // that is not the primary (or a user with no primary email at all, spec section 5: a verification
    // email cannot be set without one) is EMAIL_IS_NOT_PRIMARY_EMAIL. Either way nothing is sent.
    const channel = await q.findChannelByValue(trx, auth.tenancy.id, userId, 'email', email);
    if (!channel) throw new KnownErrors.EmailNotAssociatedWithUser();
    const primary = channel.is_primary ? channel : await q.findPrimaryChannel(trx, auth.tenancy.id, userId);
    if (!primary || primary.id !== channel.id) throw new KnownErrors.EmailIsNotPrimaryEmail(email, primary?.value ?? '(none)');
    if (primary.is_verified) throw new KnownErrors.EmailAlreadyVerified();
    await queueVerificationEmail(trx, deps, auth, primary, callbackUrl, ip);
  });
}

/**
 * Verifies the channel a link's code was issued for. Needs no signed-in user: the code proves the
 * mailbox, and the link is often opened in another browser. It does not prove that whoever clicked
 * holds the account the link was made for (an attacker who signed up with someone else's address
 * asks for a verification email and waits for its owner to click), so without a live session of
 * that account (or the server forwarding the code) the proof is a bare code: the address is
 * verified, but the account's credentials are not vouched for, and the next reset or magic link
 * to the address strips them (contact-channels/claims.ts, proveChannel). A code for a channel that
 * was deleted or changed its address since reads as CODE_NOT_FOUND.
 */
export async function verifyChannel(deps: Deps, auth: AuthContext, code: string, ip: string | null): Promise<void> {
  await limitCodeChecks(deps, auth.tenancy, ip);
  await withCode<VerificationData, void>(deps.db, auth.tenancy, EMAIL_VERIFICATION_PURPOSE, code, 'consume', async (trx, verified) => {
    const { user_id: userId, contact_channel_id: channelId, value } = verified.data;
    if (!(await q.lockUser(trx, auth.tenancy.id, userId))) throw new KnownErrors.VerificationCodeNotFound();
    const channel = await q.findChannel(trx, auth.tenancy.id, userId, channelId);
    if (!channel || channel.value.toLowerCase() !== value.toLowerCase()) throw new KnownErrors.VerificationCodeNotFound();
    if (channel.is_verified) throw new KnownErrors.EmailAlreadyVerified();
    const holder =
      auth.type !== 'client' || (auth.user?.sub === userId && (await findSessionUser(trx, auth.tenancy.id, userId, auth.user.refresh_token_id)) !== undefined);
    await proveChannel(trx, auth.tenancy, channel, holder ? 'holder' : 'bare');
  });
}
