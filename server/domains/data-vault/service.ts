import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import type { Executor } from '../../db/executor.js';
import type { Deps } from '../../deps.js';
import { currentKek, openEntry, rewrapEntry, sealEntry, type VaultKek } from './envelope.js';
import * as q from './queries.js';

/** Data vault (spec section 7): opaque values per (project, declared store, hashed key), sealed at rest. */

function requireStore(auth: AuthContext, storeId: string): void {
  if (!auth.project.config.data_vault_stores.some((store) => store.id === storeId)) throw new KnownErrors.DataVaultStoreDoesNotExist(storeId);
}

export async function setValue(deps: Deps, auth: AuthContext, storeId: string, hashedKey: string, encryptedValue: string): Promise<void> {
  requireStore(auth, storeId);
  const slot = { tenancyId: auth.tenancy.id, storeId, hashedKey };
  await q.upsertEntry(deps.db, auth.tenancy.id, storeId, hashedKey, sealEntry(currentKek(deps.env.secret), slot, encryptedValue));
}

export async function getValue(deps: Deps, auth: AuthContext, storeId: string, hashedKey: string): Promise<string> {
  requireStore(auth, storeId);
  const entry = await q.findEntry(deps.db, auth.tenancy.id, storeId, hashedKey);
  if (!entry) throw new KnownErrors.DataVaultStoreHashedKeyDoesNotExist(storeId, hashedKey);
  // A row that does not open (moved from another slot, or sealed under another LATCH_SECRET) is an
  // internal error, never a value: the envelope is authenticated.
  return openEntry(currentKek(deps.env.secret), { tenancyId: auth.tenancy.id, storeId, hashedKey }, entry);
}

/**
 * Key rotation: re-wraps every data key wrapped by `from` with `to`, in key order and in pages,
 * leaving the sealed values alone (no value is decrypted). A row whose data key does not open
 * (copied from another slot, or altered) is counted in `failed` and left as it is. Safe to rerun
 * after an interruption: it resumes with the rows still on `from`.
 */
export async function rewrapDataKeys(db: Executor, from: VaultKek, to: VaultKek, pageSize = 500): Promise<{ rewrapped: number; failed: number }> {
  if (from.version === to.version) throw new Error('rotation needs a new KEK version');
  let rewrapped = 0;
  let failed = 0;
  let after: q.EntrySlotRow | null = null;
  for (;;) {
    const rows: q.EntrySlotRow[] = await q.listEntriesWrappedBy(db, from.version, after, pageSize);
    if (rows.length === 0) return { rewrapped, failed };
    for (const row of rows) {
      let next;
      try {
        next = rewrapEntry(from, to, { tenancyId: row.tenancy_id, storeId: row.store_id, hashedKey: row.hashed_key }, row);
      } catch {
        failed += 1;
        continue;
      }
      await q.replaceWrappedKey(db, row, next);
      rewrapped += 1;
    }
    after = rows[rows.length - 1]!;
  }
}
