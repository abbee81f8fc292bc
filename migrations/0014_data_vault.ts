import { type Kysely, sql } from 'kysely';
import { createdAt, tenantKey, updatedAt } from './lib/columns.js';

/**
 * Data vault entries (issue 19 item 1). The SDK hashes the key (PBKDF2, 100,000 iterations) and
 * encrypts the value before they leave the developer's server, so `hashed_key` is opaque and the
 * value the server receives is already ciphertext. The server adds its own envelope at rest:
 * `value_sealed` is that ciphertext under a random per-entry data key, `wrapped_data_key` is the
 * data key under the deployment's vault key (derived from LATCH_SECRET), both bound to
 * (tenancy, store, hashed key) as associated data, so a row copied to another slot does not open.
 * Key rotation rewrites `wrapped_data_key` and `key_version` only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE data_vault_entries (
      tenancy_id uuid NOT NULL REFERENCES tenancies (id) ON DELETE CASCADE,
      store_id text NOT NULL,
      hashed_key text NOT NULL,
      key_version integer NOT NULL,
      wrapped_data_key text NOT NULL,
      value_sealed text NOT NULL,
      ${createdAt},
      ${updatedAt},
      ${tenantKey('store_id', 'hashed_key')}
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS data_vault_entries`.execute(db);
}
