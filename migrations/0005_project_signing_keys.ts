import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements } from './lib/columns.js';

/**
 * A signing key per project (issue 13, item 6). The deployment-wide keyring of ES256 keys
 * (signing_keys) gives way to generations of 256-bit seeds, stored encrypted (AES-256-GCM under the
 * `signing-keys` HKDF sub-key of LATCH_SECRET, bound to the generation number): every project
 * derives its own key pair from each generation's seed (server/crypto/jwt.ts), so nothing per
 * project is stored and verification never reads the database.
 *
 * The old table goes: its keys signed every project's tokens, so a token of one project verified
 * against another's JWKS. Access tokens signed with them (10 minutes' worth) stop verifying at the
 * upgrade; clients refresh them with their refresh tokens.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE signing_key_generations (
      generation integer PRIMARY KEY CHECK (generation > 0),
      seed_encrypted text NOT NULL,
      ${createdAt}
    )`,
    sql`DROP TABLE IF EXISTS signing_keys`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS signing_key_generations`.execute(db);
  await sql`CREATE TABLE IF NOT EXISTS signing_keys (
    kid text PRIMARY KEY,
    public_jwk jsonb NOT NULL,
    private_jwk_encrypted text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
}
