import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements, tenantKey, userForeignKey } from './lib/columns.js';

/**
 * Passkeys (issue 16): a user's WebAuthn credentials, several per user. The ceremonies' challenges
 * are verification codes (purposes passkey_registration / passkey_authentication): single use,
 * stored hashed, tenancy-scoped, expiring; this migration adds only the credentials.
 *
 * - credential_id is the authenticator's id (base64url), unique per tenancy: one authenticator's
 *   credential belongs to one account of one project (another project's sign-in never finds it).
 * - public_key is the COSE key (base64url); counter is WebAuthn's signature counter (uint32, so
 *   bigint: a PostgreSQL integer stops at 2^31 - 1). Synced passkeys keep it at 0.
 * - rp_id is the hostname the credential is bound to (the trusted origin's host at registration).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE passkeys (
      tenancy_id uuid NOT NULL,
      id uuid NOT NULL,
      user_id uuid NOT NULL,
      credential_id text NOT NULL,
      public_key text NOT NULL,
      counter bigint NOT NULL DEFAULT 0,
      transports jsonb NOT NULL DEFAULT '[]'::jsonb,
      device_type text NOT NULL,
      backed_up boolean NOT NULL DEFAULT false,
      rp_id text NOT NULL,
      name text NOT NULL,
      ${createdAt},
      last_used_at timestamptz,
      ${tenantKey('id')},
      ${userForeignKey()}
    )`,
    sql`CREATE UNIQUE INDEX passkeys_credential_idx ON passkeys (tenancy_id, credential_id)`,
    sql`CREATE INDEX passkeys_user_idx ON passkeys (tenancy_id, user_id, created_at)`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS passkeys CASCADE`.execute(db);
}
