/** SQL of TOTP enrolment, the replay guard and recovery codes (migration 0009). */
import type { Executor } from '../../db/executor.js';

export interface TotpStateRow {
  pending_secret_encrypted: string | null;
  pending_expires_at: Date | null;
  last_step: number | null;
}

export async function findTotpState(db: Executor, tenancyId: string, userId: string): Promise<TotpStateRow | undefined> {
  return db
    .selectFrom('mfa_totp')
    .select(['pending_secret_encrypted', 'pending_expires_at', 'last_step'])
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId }))
    .executeTakeFirst();
}

/** Stores (or replaces) the enrolment waiting for its first code. */
export async function setPendingSecret(db: Executor, tenancyId: string, userId: string, sealed: string | null, expiresAt: Date | null): Promise<void> {
  await db
    .insertInto('mfa_totp')
    .values({ tenancy_id: tenancyId, user_id: userId, pending_secret_encrypted: sealed, pending_expires_at: expiresAt })
    .onConflict((oc) =>
      oc.columns(['tenancy_id', 'user_id']).doUpdateSet({ pending_secret_encrypted: sealed, pending_expires_at: expiresAt, updated_at: new Date() }),
    )
    .execute();
}

/**
 * Claims a time step for the user: true when it is later than every step accepted before. One
 * statement, so of two requests with the same code exactly one gets true (PostgreSQL re-checks
 * the WHERE of ON CONFLICT against the row the other one committed).
 */
export async function claimTotpStep(db: Executor, tenancyId: string, userId: string, step: number): Promise<boolean> {
  const row = await db
    .insertInto('mfa_totp')
    .values({ tenancy_id: tenancyId, user_id: userId, last_step: step })
    .onConflict((oc) =>
      oc
        .columns(['tenancy_id', 'user_id'])
        .doUpdateSet({ last_step: step, updated_at: new Date() })
        .where((eb) => eb.or([eb('mfa_totp.last_step', 'is', null), eb('mfa_totp.last_step', '<', step)])),
    )
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteRecoveryCodes(db: Executor, tenancyId: string, userId: string): Promise<void> {
  await db.deleteFrom('mfa_recovery_codes').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).execute();
}

export async function insertRecoveryCodes(
  db: Executor,
  rows: ReadonlyArray<{ tenancy_id: string; user_id: string; id: string; code_hash: string }>,
): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('mfa_recovery_codes')
      .values([...rows])
      .execute();
}

/** Uses up an unused code of this user: true once, false for an unknown or used one (also under a race). */
export async function useRecoveryCode(db: Executor, tenancyId: string, userId: string, codeHash: string, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('mfa_recovery_codes')
    .set({ used_at: at })
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId, code_hash: codeHash }))
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export interface RecoveryCodeCounts {
  total: number;
  remaining: number;
  last_used_at: Date | null;
}

export async function countRecoveryCodes(db: Executor, tenancyId: string, userId: string): Promise<RecoveryCodeCounts> {
  const row = await db
    .selectFrom('mfa_recovery_codes')
    .select((eb) => [
      eb.fn.countAll<string | number>().as('total'),
      eb.fn.count<string | number>('id').filterWhere('used_at', 'is', null).as('remaining'),
      eb.fn.max('used_at').as('last_used_at'),
    ])
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId }))
    .executeTakeFirst();
  return { total: Number(row?.total ?? 0), remaining: Number(row?.remaining ?? 0), last_used_at: (row?.last_used_at as Date | null) ?? null };
}

/**
 * Removes what surrounds a user's TOTP secret when it is taken away outside this domain (a PATCH
 * of totp_secret_base64: null, a stranger's proof of the address stripping the claimant's
 * credentials): the pending enrolment and the recovery codes, so that a secret set later does not
 * bring old codes back. (The replay guard's last step stays: it only refuses past steps.)
 */
export async function clearTotpSurroundings(db: Executor, tenancyId: string, userId: string): Promise<void> {
  await deleteRecoveryCodes(db, tenancyId, userId);
  await db
    .updateTable('mfa_totp')
    .set({ pending_secret_encrypted: null, pending_expires_at: null })
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId }))
    .execute();
}
