import type { Executor } from '../projects/queries.js';

export async function listSigningKeys(db: Executor, notBefore: Date) {
  return db.selectFrom('signing_keys').selectAll().where('created_at', '>', notBefore).orderBy('created_at', 'desc').execute();
}

export async function insertSigningKey(db: Executor, key: { kid: string; public_jwk: string; private_jwk_encrypted: string }): Promise<void> {
  await db.insertInto('signing_keys').values(key).execute();
}
