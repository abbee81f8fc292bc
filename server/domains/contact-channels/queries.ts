import { sql } from 'kysely';
import type { ContactChannelsTable } from '../../db/schema.js';
import type { Selectable } from 'kysely';
import type { Executor } from '../projects/queries.js';

export type ContactChannelRow = Selectable<ContactChannelsTable>;

/** Holds the user row until the transaction ends: changes to one user's channels (one primary) are serialized. */
export async function lockUser(db: Executor, tenancyId: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('tenancy_id', '=', tenancyId).where('id', '=', userId).forUpdate().executeTakeFirst();
  return row !== undefined;
}

export async function listChannels(db: Executor, tenancyId: string, userId: string): Promise<ContactChannelRow[]> {
  return db.selectFrom('contact_channels').selectAll().where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function findChannel(db: Executor, tenancyId: string, userId: string, id: string): Promise<ContactChannelRow | undefined> {
  return db.selectFrom('contact_channels').selectAll().where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

export async function findPrimaryChannel(db: Executor, tenancyId: string, userId: string): Promise<ContactChannelRow | undefined> {
  return db.selectFrom('contact_channels').selectAll().where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).where('is_primary', '=', true).executeTakeFirst();
}

/** The user's channel with this value (case-insensitive), if any. */
export async function findChannelByValue(db: Executor, tenancyId: string, userId: string, type: string, value: string): Promise<ContactChannelRow | undefined> {
  return db
    .selectFrom('contact_channels')
    .selectAll()
    .where('tenancy_id', '=', tenancyId)
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .where(sql`lower(value)`, '=', value.toLowerCase())
    .executeTakeFirst();
}

export async function insertChannel(
  db: Executor,
  row: { tenancy_id: string; id: string; user_id: string; type: string; value: string; is_primary: boolean; is_verified: boolean; used_for_auth: boolean },
): Promise<ContactChannelRow> {
  return db.insertInto('contact_channels').values({ ...row, created_at: new Date() }).returningAll().executeTakeFirstOrThrow();
}

export async function updateChannel(
  db: Executor,
  tenancyId: string,
  userId: string,
  id: string,
  patch: Partial<Pick<ContactChannelRow, 'value' | 'is_primary' | 'is_verified' | 'used_for_auth'>>,
): Promise<ContactChannelRow | undefined> {
  if (Object.keys(patch).length === 0) return findChannel(db, tenancyId, userId, id);
  return db.updateTable('contact_channels').set(patch).where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Unsets the user's primary channel (before another becomes primary: the unique index allows one). */
export async function clearPrimary(db: Executor, tenancyId: string, userId: string): Promise<void> {
  await db.updateTable('contact_channels').set({ is_primary: false }).where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).where('is_primary', '=', true).execute();
}

export async function deleteChannel(db: Executor, tenancyId: string, userId: string, id: string): Promise<ContactChannelRow | undefined> {
  return db.deleteFrom('contact_channels').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The channel someone signs in with at this address (case-insensitive): at most one per project. */
export async function findAuthChannel(db: Executor, tenancyId: string, type: string, value: string): Promise<ContactChannelRow | undefined> {
  return db
    .selectFrom('contact_channels')
    .selectAll()
    .where('tenancy_id', '=', tenancyId)
    .where('type', '=', type)
    .where(sql`lower(value)`, '=', value.toLowerCase())
    .where('used_for_auth', '=', true)
    .executeTakeFirst();
}
