import { sql } from 'kysely';
import type { PasskeyRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { PASSKEY_COLUMNS } from '../../db/columns.js';

export type { PasskeyRow };

export interface NewPasskey {
  tenancy_id: string;
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string[];
  device_type: string;
  backed_up: boolean;
  rp_id: string;
  name: string;
}

export async function insertPasskey(db: Executor, row: NewPasskey): Promise<PasskeyRow> {
  return db
    .insertInto('passkeys')
    .values({ ...row, transports: JSON.stringify(row.transports) })
    .returning(PASSKEY_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** A user's passkeys, oldest first. */
export async function listPasskeys(db: Executor, tenancyId: string, userId: string): Promise<PasskeyRow[]> {
  return db
    .selectFrom('passkeys')
    .select(PASSKEY_COLUMNS)
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId }))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countPasskeys(db: Executor, tenancyId: string, userId: string): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId }))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findPasskey(db: Executor, tenancyId: string, userId: string, id: string): Promise<PasskeyRow | undefined> {
  return db
    .selectFrom('passkeys')
    .select(PASSKEY_COLUMNS)
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId, id }))
    .executeTakeFirst();
}

/** The passkey with this WebAuthn credential id in this tenancy (another project's never matches). */
export async function findPasskeyByCredentialId(db: Executor, tenancyId: string, credentialId: string): Promise<PasskeyRow | undefined> {
  return db.selectFrom('passkeys').select(PASSKEY_COLUMNS).where('tenancy_id', '=', tenancyId).where('credential_id', '=', credentialId).executeTakeFirst();
}

/**
 * Records a use: the new signature counter and the time. The counter only moves forward; a
 * synced passkey that always says 0 stays at 0 (verifyAuthenticationResponse already refused a
 * counter that went backwards). Returns false when the passkey was deleted meanwhile.
 */
export async function recordPasskeyUse(db: Executor, tenancyId: string, id: string, newCounter: number): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set((eb) => ({ counter: sql<number>`greatest(${eb.ref('counter')}, ${newCounter})`, last_used_at: sql<Date>`now()` }))
    .where((eb) => eb.and({ tenancy_id: tenancyId, id }))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function renamePasskey(db: Executor, tenancyId: string, userId: string, id: string, name: string): Promise<PasskeyRow | undefined> {
  return db
    .updateTable('passkeys')
    .set({ name })
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId, id }))
    .returning(PASSKEY_COLUMNS)
    .executeTakeFirst();
}

export async function deletePasskey(db: Executor, tenancyId: string, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('passkeys').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Every passkey of a user (a stranger's proof of the account's address revokes the claimant's credentials). */
export async function deletePasskeysOfUser(db: Executor, tenancyId: string, userId: string): Promise<void> {
  await db.deleteFrom('passkeys').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).execute();
}
