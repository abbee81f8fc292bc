/**
 * Who an OAuth sign-in is (issue 15 item 4). A provider account is (tenancy, provider config id,
 * provider account id); the row with allow_sign_in answers to it.
 *
 * - **link** (a signed-in user's token): the provider account is connected to that user, unless it
 *   signs in to another user (OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER) or the user
 *   already has another account of this provider (USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION).
 *   Addresses are not touched.
 * - **authenticate**, known provider account: its user signs in.
 * - **authenticate**, new provider account, with an anonymous user's token: that user is upgraded in
 *   place (keeps its id and data, stops being anonymous; is_new_user true, it is the sign-up).
 * - **authenticate**, new provider account whose address is a sign-in address of an existing user:
 *   `oauth_account_merge_strategy` decides. link_method links only when the existing address is
 *   verified AND the provider vouches for it (then the OAuth proof is a stranger's proof of the
 *   address, as a magic link is: the sign-in policy's verified-email rule settles it);
 *   otherwise, and always for raise_error, CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE.
 *   allow_duplicates creates a new user whose copy of the address is not used for sign-in.
 * - otherwise a new user (SIGN_UP_NOT_ENABLED when sign-up is off): a vouched address becomes a
 *   verified sign-in address; an unvouched one only a contact address (an unverified address
 *   never becomes a sign-in credential through OAuth); no address at all is fine (X).
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import type { UserRow } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { ProjectRecord, Tenancy } from '../../access/context.js';
import { findAuthChannel, findChannel, lockUser, type ContactChannelRow } from '../contact-channels/queries.js';
import { findUser, replacePrimaryEmail, updateUser } from '../users/queries.js';
import { settleProvenAddress, syncPrimaryEmail } from '../contact-channels/claims.js';
import { insertUserWithEmail } from '../users/service.js';
import type { ProviderProfile } from './providers/types.js';
import * as q from './queries.js';

export interface SignInTarget {
  type: 'authenticate' | 'link';
  /** The user of the token the flow started with (link: required; authenticate: an anonymous user to upgrade). */
  tokenUserId: string | null;
}

export interface ResolvedAccount {
  user: UserRow;
  account: q.OAuthAccountRow;
  isNewUser: boolean;
  provenChannel?: ContactChannelRow;
}

async function insertAccountFor(db: Executor, tenancy: Tenancy, userId: string, providerId: string, profile: ProviderProfile): Promise<q.OAuthAccountRow> {
  try {
    return await q.insertAccount(db, {
      tenancy_id: tenancy.id,
      id: randomUUID(),
      user_id: userId,
      provider_config_id: providerId,
      provider_account_id: profile.accountId,
      email: profile.email,
      allow_sign_in: true,
      allow_connected_accounts: true,
    });
  } catch (error) {
    // A concurrent callback of the same provider account connected it first.
    if (isUniqueViolation(error)) throw new KnownErrors.OAuthConnectionAlreadyConnectedToAnotherUser();
    throw error;
  }
}

async function requireUser(db: Executor, tenancy: Tenancy, userId: string): Promise<UserRow> {
  await lockUser(db, tenancy.id, userId);
  const user = await findUser(db, tenancy.id, userId);
  if (!user) throw new KnownErrors.UserNotFound();
  return user;
}

/** Finds or creates the user an OAuth callback signs in (see the top of this file). In the callback's transaction. */
export async function resolveAccount(
  deps: Deps,
  db: Executor,
  tenancy: Tenancy,
  project: ProjectRecord,
  providerId: string,
  profile: ProviderProfile,
  target: SignInTarget,
): Promise<ResolvedAccount> {
  const config = project.config;
  const existing = await q.findSignInAccount(db, tenancy.id, providerId, profile.accountId);

  if (target.type === 'link') {
    if (!target.tokenUserId) throw new KnownErrors.UserAuthenticationRequired();
    const user = await requireUser(db, tenancy, target.tokenUserId);
    if (existing && existing.user_id !== user.id) throw new KnownErrors.OAuthConnectionAlreadyConnectedToAnotherUser();
    if (existing)
      return { user, account: (await q.updateAccount(db, tenancy.id, user.id, existing.id, { email: profile.email })) ?? existing, isNewUser: false };
    const others = (await q.listAccountsOfUser(db, tenancy.id, user.id)).filter((a) => a.provider_config_id === providerId);
    if (others.some((a) => a.provider_account_id !== profile.accountId)) throw new KnownErrors.UserAlreadyConnectedToAnotherOAuthConnection();
    const own = others.find((a) => a.provider_account_id === profile.accountId);
    // The user's own row for this account that had sign-in off: it signs in again.
    const account = own
      ? ((await q.updateAccount(db, tenancy.id, user.id, own.id, { allow_sign_in: true, email: profile.email })) ?? own)
      : await insertAccountFor(db, tenancy, user.id, providerId, profile);
    return { user, account, isNewUser: false };
  }

  if (existing) {
    const user = await requireUser(db, tenancy, existing.user_id);
    const account = (await q.updateAccount(db, tenancy.id, user.id, existing.id, { email: profile.email })) ?? existing;
    return { user, account, isNewUser: false };
  }

  // A new provider account. Its address, when another user signs in with it:
  let duplicateAddress = false;
  if (profile.email) {
    const channel = await findAuthChannel(db, tenancy.id, 'email', profile.email);
    if (channel && channel.user_id !== target.tokenUserId) {
      const strategy = config.oauth_account_merge_strategy;
      if (strategy === 'allow_duplicates') {
        duplicateAddress = true;
      } else if (strategy === 'link_method' && channel.is_verified && profile.emailVerified) {
        // Locked, then read again: the channel is judged as it is while its user row is held.
        await lockUser(db, tenancy.id, channel.user_id);
        const current = await findChannel(db, tenancy.id, channel.user_id, channel.id);
        const user = await findUser(db, tenancy.id, channel.user_id);
        if (!current?.is_verified || !current.used_for_auth || !user)
          throw new KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse('email', profile.email);
        const account = await insertAccountFor(db, tenancy, user.id, providerId, profile);
        return { user, account, isNewUser: false, provenChannel: current };
      } else {
        throw new KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse(
          'email',
          profile.email,
          strategy === 'link_method' && !channel.is_verified && profile.emailVerified,
        );
      }
    }
  }

  if (!config.sign_up_enabled) throw new KnownErrors.SignUpNotEnabled();

  if (target.tokenUserId) {
    const anonymous = await requireUser(db, tenancy, target.tokenUserId);
    if (anonymous.is_anonymous) {
      // Upgrade in place: same id, same data; the provider's profile fills what is empty.
      const upgraded = await updateUser(db, tenancy.id, anonymous.id, {
        is_anonymous: false,
        display_name: anonymous.display_name ?? profile.displayName,
        profile_image_url: anonymous.profile_image_url ?? profile.avatarUrl,
      });
      let user = upgraded ?? anonymous;
      if (profile.email && !user.primary_email && !duplicateAddress) {
        await attachAddress(db, tenancy, user.id, profile);
        user = (await findUser(db, tenancy.id, user.id)) ?? user;
      }
      const account = await insertAccountFor(db, tenancy, user.id, providerId, profile);
      return { user, account, isNewUser: true };
    }
  }

  const vouched = Boolean(profile.email) && profile.emailVerified && !duplicateAddress;
  const user = await insertUserWithEmail(db, deps, tenancy, config, {
    primaryEmail: profile.email,
    // A duplicate's copy is never verified here: proving it would strip the other account's claims.
    primaryEmailVerified: vouched,
    primaryEmailAuthEnabled: vouched,
    passwordHash: null,
    isAnonymous: false,
    displayName: profile.displayName,
    profileImageUrl: profile.avatarUrl,
    refuseOverUnverifiedClaims: false,
  });
  const account = await insertAccountFor(db, tenancy, user.id, providerId, profile);
  return { user, account, isNewUser: true };
}

/** An upgraded anonymous user's address from the provider (same rules as a new user's). */
async function attachAddress(db: Executor, tenancy: Tenancy, userId: string, profile: ProviderProfile): Promise<void> {
  const vouched = profile.emailVerified;
  try {
    await replacePrimaryEmail(db, tenancy.id, userId, { id: randomUUID(), value: profile.email!, is_verified: vouched, used_for_auth: vouched });
  } catch (error) {
    if (isUniqueViolation(error)) throw new KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse('email', profile.email!);
    throw error;
  }
  if (vouched) await settleProvenAddress(db, tenancy, { user_id: userId, value: profile.email!, type: 'email' });
  await syncPrimaryEmail(db, tenancy, userId);
}
