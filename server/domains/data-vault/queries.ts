import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { SealedEntry } from './envelope.js';

const ENTRY_COLUMNS = ['key_version', 'wrapped_data_key', 'value_sealed'] as const;

export async function findEntry(db: Executor, tenancyId: string, storeId: string, hashedKey: string): Promise<SealedEntry | undefined> {
  return db
    .selectFrom('data_vault_entries')
    .select(ENTRY_COLUMNS)
    .where('tenancy_id', '=', tenancyId)
    .where('store_id', '=', storeId)
    .where('hashed_key', '=', hashedKey)
    .executeTakeFirst();
}

export async function upsertEntry(db: Executor, tenancyId: string, storeId: string, hashedKey: string, entry: SealedEntry): Promise<void> {
  await db
    .insertInto('data_vault_entries')
    .values({ tenancy_id: tenancyId, store_id: storeId, hashed_key: hashedKey, ...entry })
    .onConflict((oc) => oc.columns(['tenancy_id', 'store_id', 'hashed_key']).doUpdateSet({ ...entry, updated_at: sql<Date>`now()` }))
    .execute();
}

export interface EntrySlotRow extends SealedEntry {
  tenancy_id: string;
  store_id: string;
  hashed_key: string;
}

/** A page of entries still wrapped by KEK `version`, in key order after `after`. */
export async function listEntriesWrappedBy(
  db: Executor,
  version: number,
  after: { tenancy_id: string; store_id: string; hashed_key: string } | null,
  limit: number,
): Promise<EntrySlotRow[]> {
  let query = db
    .selectFrom('data_vault_entries')
    .select(['tenancy_id', 'store_id', 'hashed_key', ...ENTRY_COLUMNS])
    .where('key_version', '=', version);
  if (after)
    query = query.where((eb) => eb(eb.refTuple('tenancy_id', 'store_id', 'hashed_key'), '>', eb.tuple(after.tenancy_id, after.store_id, after.hashed_key)));
  return query.orderBy('tenancy_id').orderBy('store_id').orderBy('hashed_key').limit(limit).execute();
}

/** Replaces the wrapped data key only if the row is still wrapped as read (a concurrent set wins). */
export async function replaceWrappedKey(db: Executor, row: EntrySlotRow, next: SealedEntry): Promise<void> {
  await db
    .updateTable('data_vault_entries')
    .set({ key_version: next.key_version, wrapped_data_key: next.wrapped_data_key })
    .where('tenancy_id', '=', row.tenancy_id)
    .where('store_id', '=', row.store_id)
    .where('hashed_key', '=', row.hashed_key)
    .where('wrapped_data_key', '=', row.wrapped_data_key)
    .execute();
}
