import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { findAuthChannel, findChannel, lockUser } from '../contact-channels/queries.js';
import { consumeMailLimits } from '../emails/limits.js';
import { queueEmail } from '../emails/service.js';
import { clearSignInFailures, limitEmailProbes } from '../rate-limits/service.js';
import { findUser, updateUser } from '../users/queries.js';
import { insertUserWithEmail } from '../users/service.js';
import { type AuthResponse, completeSignIn, holdSignInRefusal, settleSignIn } from './sign-in.js';
import { assertTrustedCallbackUrl, codeLink, createCode, limitCodeChecks, type VerifiedCode, withCode } from '../verification/service.js';

/** The verification_codes purpose of magic links / one-time codes. */
export const MAGIC_LINK_PURPOSE = 'magic_link';
/** A magic link or one-time code works for 15 minutes. */
export const MAGIC_LINK_TTL_MILLIS = 15 * 60 * 1000;

interface MagicLinkData {
  email: string;
}

/**
 * Emails a sign-in link and a 6-character code (one email, both work). Returns the nonce that the
 * asking browser keeps: the typed code is sent as `code + nonce` (verification/service.ts,
 * createCode). For an address without an account the email goes out too, and signing in creates
 * the account, as long as sign-up is enabled (SIGN_UP_NOT_ENABLED otherwise).
 */
export async function sendSignInCode(deps: Deps, auth: AuthContext, email: string, callbackUrl: string, ip: string | null): Promise<{ nonce: string }> {
  const config = auth.project.config;
  if (!config.magic_link_enabled) throw new KnownErrors.MagicLinkAuthenticationNotEnabled();
  assertTrustedCallbackUrl(auth.project, callbackUrl);
  // With sign-up off, an unknown address is refused: an answer that reveals an account (limited).
  const probe = config.sign_up_enabled ? null : await limitEmailProbes(deps, auth.tenancy, ip);
  return deps.db
    .transaction()
    .execute(async (trx) => {
      // Every mail limit (per IP, per recipient, client share, project budget) before the address is
      // looked up, so a refusal says nothing about whether it has an account.
      await consumeMailLimits(trx, deps, auth, email, ip);
      const channel = await findAuthChannel(trx, auth.tenancy.id, 'email', email);
      if (!channel && !config.sign_up_enabled) throw new KnownErrors.SignUpNotEnabled();
      const address = channel?.value ?? email;
      const data: MagicLinkData = { email: address };
      const issued = await createCode(trx, auth.tenancy, MAGIC_LINK_PURPOSE, data, MAGIC_LINK_TTL_MILLIS, { otp: true });
      await queueEmail(trx, deps, auth, address, { type: 'magic-link', ...codeLink(callbackUrl, issued), otp: issued.otp! }, { limitedByCaller: true });
      return { nonce: issued.nonce! };
    })
    .catch(async (error: unknown) => {
      if (probe && error instanceof KnownErrors.SignUpNotEnabled) await probe.revealed();
      throw error;
    });
}

/**
 * Signs in with the code of a magic link (or the typed short code followed by the nonce). The code
 * proves the mailbox. The account the address answers to gets a session, and the address becomes
 * verified; if it was not verified there, the account had been claimed by whoever signed up with
 * it, so every credential they set is revoked first (password, TOTP, sessions, API keys, other
 * sign-in addresses: contact-channels/claims.ts, proveChannel) and other accounts' claims on the
 * address are removed. An address without one becomes a new, verified account (is_new_user true)
 * when sign-up is enabled. Either way the address's failed password sign-ins are forgotten.
 */
export async function signInWithCode(deps: Deps, auth: AuthContext, code: string, ip: string | null): Promise<AuthResponse> {
  const config = auth.project.config;
  if (!config.magic_link_enabled) throw new KnownErrors.MagicLinkAuthenticationNotEnabled();
  await limitCodeChecks(deps, auth.tenancy, ip);
  let email = '';
  // Held: for a user with MFA on, the used code and the attempt code commit before the refusal.
  const held = await withCode(deps.db, auth.tenancy, MAGIC_LINK_PURPOSE, code, 'consume', (trx, verified: VerifiedCode<MagicLinkData>) =>
    holdSignInRefusal<AuthResponse>(trx, async () => {
      email = verified.data.email;
      const found = await findAuthChannel(trx, auth.tenancy.id, 'email', verified.data.email);
      // Locked, then read again: the channel is judged as it is while the user row is held.
      const channel =
        found && (await lockUser(trx, auth.tenancy.id, found.user_id)) ? await findChannel(trx, auth.tenancy.id, found.user_id, found.id) : undefined;
      if (channel) {
        let user = await findUser(trx, auth.tenancy.id, channel.user_id);
        if (!user) throw new KnownErrors.VerificationCodeNotFound();
        if (!user.otp_auth_enabled) {
          // The user's switch (otp_auth_enabled) holds once the account's holder has proven the
          // address: then it is their choice. Before that it is a claimant's setting, and the proof
          // shown here settles who holds the account (the verified-email rule strips what the
          // claimant set): the prover signed in this way, so the way is on for them.
          if (channel.is_verified && channel.verified_by_holder) throw new KnownErrors.OtpAuthenticationNotEnabledForUser();
          user = (await updateUser(trx, auth.tenancy.id, user.id, { otp_auth_enabled: true })) ?? user;
        }
        // The code proved the address: the sign-in policy's verified-email rule settles it (sign-in.ts).
        return completeSignIn(deps, trx, { tenancy: auth.tenancy, user, method: 'magic_link', isNewUser: false, ip, provenChannel: channel });
      }
      if (!config.sign_up_enabled) throw new KnownErrors.SignUpNotEnabled();
      const user = await insertUserWithEmail(trx, deps, auth.tenancy, config, {
        primaryEmail: verified.data.email,
        primaryEmailVerified: true,
        primaryEmailAuthEnabled: true,
        passwordHash: null,
        isAnonymous: false,
        otpAuthEnabled: true,
      });
      return completeSignIn(deps, trx, { tenancy: auth.tenancy, user, method: 'magic_link', isNewUser: true, ip });
    }),
  );
  await clearSignInFailures(deps, auth.tenancy, email);
  return settleSignIn(held);
}
