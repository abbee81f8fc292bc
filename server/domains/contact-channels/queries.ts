import { sql } from 'kysely';
import type { ContactChannelsTable } from '../../db/schema.js';
import type { Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { CONTACT_CHANNEL_COLUMNS } from '../../db/columns.js';

export type ContactChannelRow = Selectable<ContactChannelsTable>;

/** One user's channels: the base of every per-user read. */
function userChannels(db: Executor, tenancyId: string, userId: string) {
  return db.selectFrom('contact_channels').select(CONTACT_CHANNEL_COLUMNS).where('tenancy_id', '=', tenancyId).where('user_id', '=', userId);
}

/** Sets `patch` on the user's channels (the caller narrows which). */
function updateUserChannels(db: Executor, tenancyId: string, userId: string, patch: Updateable<ContactChannelsTable>) {
  return db.updateTable('contact_channels').set(patch).where('tenancy_id', '=', tenancyId).where('user_id', '=', userId);
}

/** The sign-in channels at an address (case-insensitive), any user's. */
function authChannelsAt(db: Executor, tenancyId: string, type: string, value: string) {
  return db
    .selectFrom('contact_channels')
    .select(CONTACT_CHANNEL_COLUMNS)
    .where((eb) => eb.and({ tenancy_id: tenancyId, type }))
    .where(sql`lower(value)`, '=', value.toLowerCase())
    .where('used_for_auth', '=', true);
}

/** Holds the user row until the transaction ends: changes to one user's channels (one primary) are serialized. */
export async function lockUser(db: Executor, tenancyId: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('tenancy_id', '=', tenancyId).where('id', '=', userId).forUpdate().executeTakeFirst();
  return row !== undefined;
}

export async function listChannels(db: Executor, tenancyId: string, userId: string): Promise<ContactChannelRow[]> {
  return userChannels(db, tenancyId, userId).orderBy('created_at').orderBy('id').execute();
}

export async function findChannel(db: Executor, tenancyId: string, userId: string, id: string): Promise<ContactChannelRow | undefined> {
  return userChannels(db, tenancyId, userId).where('id', '=', id).executeTakeFirst();
}

export async function findPrimaryChannel(db: Executor, tenancyId: string, userId: string): Promise<ContactChannelRow | undefined> {
  return userChannels(db, tenancyId, userId).where('is_primary', '=', true).executeTakeFirst();
}

/** The user's channel with this value (case-insensitive), if any. */
export async function findChannelByValue(db: Executor, tenancyId: string, userId: string, type: string, value: string): Promise<ContactChannelRow | undefined> {
  return userChannels(db, tenancyId, userId)
    .where('type', '=', type)
    .where(sql`lower(value)`, '=', value.toLowerCase())
    .executeTakeFirst();
}

export async function insertChannel(
  db: Executor,
  row: { tenancy_id: string; id: string; user_id: string; type: string; value: string; is_primary: boolean; is_verified: boolean; used_for_auth: boolean },
): Promise<ContactChannelRow> {
  return db
    .insertInto('contact_channels')
    .values({ ...row, created_at: new Date() })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateChannel(
  db: Executor,
  tenancyId: string,
  userId: string,
  id: string,
  patch: Partial<Pick<ContactChannelRow, 'value' | 'is_primary' | 'is_verified' | 'used_for_auth' | 'verified_by_holder'>>,
): Promise<ContactChannelRow | undefined> {
  if (Object.keys(patch).length === 0) return findChannel(db, tenancyId, userId, id);
  return updateUserChannels(db, tenancyId, userId, patch).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Unsets the user's primary channel (before another becomes primary: the unique index allows one). */
export async function clearPrimary(db: Executor, tenancyId: string, userId: string): Promise<void> {
  await updateUserChannels(db, tenancyId, userId, { is_primary: false }).where('is_primary', '=', true).execute();
}

export async function deleteChannel(db: Executor, tenancyId: string, userId: string, id: string): Promise<ContactChannelRow | undefined> {
  return db
    .deleteFrom('contact_channels')
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId, id }))
    .returningAll()
    .executeTakeFirst();
}

/**
 * The channel that signs in with this address (case-insensitive): the verified one (at most one per
 * project, the unique index contact_channels_verified_auth_idx), else the newest unverified claim.
 * Unverified claims may coexist (migrations/0006_auth_claims.ts): a sign-up is never blocked by
 * an address nobody proved, and of several claims only the newest answers to the address.
 */
export async function findAuthChannel(db: Executor, tenancyId: string, type: string, value: string): Promise<ContactChannelRow | undefined> {
  return authChannelsAt(db, tenancyId, type, value)
    .orderBy('is_verified', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Another user's sign-in channel at this address: only a verified one, or (`anyClaim`) an
 * unverified claim too.
 */
export async function findOtherAuthChannel(
  db: Executor,
  tenancyId: string,
  type: string,
  value: string,
  userId: string | null,
  options: { anyClaim: boolean },
): Promise<ContactChannelRow | undefined> {
  let query = authChannelsAt(db, tenancyId, type, value);
  if (userId) query = query.where('user_id', '!=', userId);
  if (!options.anyClaim) query = query.where('is_verified', '=', true);
  return query.limit(1).executeTakeFirst();
}

/** Deletes other users' unverified sign-in claims on an address; returns the deleted rows. */
export async function deleteUnverifiedClaims(db: Executor, tenancyId: string, type: string, value: string, exceptUserId: string): Promise<ContactChannelRow[]> {
  return db
    .deleteFrom('contact_channels')
    .where((eb) => eb.and({ tenancy_id: tenancyId, type }))
    .where(sql`lower(value)`, '=', value.toLowerCase())
    .where('used_for_auth', '=', true)
    .where('is_verified', '=', false)
    .where('user_id', '!=', exceptUserId)
    .returningAll()
    .execute();
}

/** Stops every other channel of the user from signing in; returns the channels changed. */
export async function disableOtherAuthChannels(db: Executor, tenancyId: string, userId: string, keepChannelId: string): Promise<ContactChannelRow[]> {
  return updateUserChannels(db, tenancyId, userId, { used_for_auth: false })
    .where('id', '!=', keepChannelId)
    .where('used_for_auth', '=', true)
    .returningAll()
    .execute();
}
