import { sql } from 'kysely';
import type { VerificationCodeRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { VERIFICATION_CODE_COLUMNS } from '../../db/columns.js';

export async function insertCode(
  db: Executor,
  code: { tenancy_id: string; id: string; purpose: string; code_hash: string; data: unknown; expires_at: Date },
): Promise<void> {
  await db
    .insertInto('verification_codes')
    .values({ ...code, data: JSON.stringify(code.data) })
    .execute();
}

/**
 * The code with this hash in this tenancy, locked until the transaction ends: two concurrent
 * uses of one code are serialized, so a single-use code is used exactly once.
 */
export async function lockCodeByHash(db: Executor, tenancyId: string, codeHash: string): Promise<VerificationCodeRow | undefined> {
  return db
    .selectFrom('verification_codes')
    .select(VERIFICATION_CODE_COLUMNS)
    .where((eb) => eb.and({ code_hash: codeHash, tenancy_id: tenancyId }))
    .forUpdate()
    .executeTakeFirst();
}

export async function recordAttempt(db: Executor, tenancyId: string, id: string, options: { markUsed: boolean }): Promise<void> {
  await db
    .updateTable('verification_codes')
    .set((eb) => ({
      attempt_count: eb('attempt_count', '+', 1),
      ...(options.markUsed ? { used_at: sql<Date>`now()` } : {}),
    }))
    .where((eb) => eb.and({ tenancy_id: tenancyId, id }))
    .execute();
}

export async function deleteCodes(db: Executor, tenancyId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('verification_codes').where('tenancy_id', '=', tenancyId).where('id', 'in', ids).execute();
}

/** Deletes a user's unused codes of one purpose (their payload names the user as `user_id`). */
export async function deleteUnusedCodesOfUser(db: Executor, tenancyId: string, purpose: string, userId: string): Promise<void> {
  await db
    .deleteFrom('verification_codes')
    .where((eb) => eb.and({ tenancy_id: tenancyId, purpose }))
    .where('used_at', 'is', null)
    .where(sql`data -> 'payload' ->> 'user_id'`, '=', userId)
    .execute();
}

/** Marks a code used without counting an attempt (the attempt was counted when it was checked). */
export async function markCodeUsed(db: Executor, tenancyId: string, id: string): Promise<void> {
  await db
    .updateTable('verification_codes')
    .set({ used_at: sql<Date>`now()` })
    .where((eb) => eb.and({ tenancy_id: tenancyId, id }))
    .execute();
}
