import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements, tenantKey, updatedAt, userForeignKey } from './lib/columns.js';

/**
 * TOTP MFA (issue 16). The user's active secret stays where it was (users.totp_secret_encrypted,
 * sealed; users.requires_totp_mfa); these tables hold what surrounds it:
 *
 * - mfa_totp: one row per user who started an enrolment or used a code. `pending_secret_encrypted`
 *   is an enrolment not yet confirmed with a code (sealed like the active secret); `last_step` is
 *   the last TOTP time step accepted for the user, claimed with `WHERE last_step < $step`, so a
 *   code is accepted once even when two requests race with it (the replay guard).
 * - mfa_recovery_codes: 10 single-use codes per user, stored as SHA-256 only; `used_at` keeps the
 *   use visible (the user and the console see how many are left and when one was last used).
 *
 * Attempt codes (a first factor passed, the second one outstanding) are verification codes of
 * purpose 'mfa_sign_in' (0003), hashed, expiring and attempt-limited like every other code.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE mfa_totp (
      tenancy_id uuid NOT NULL,
      user_id uuid NOT NULL,
      pending_secret_encrypted text,
      pending_expires_at timestamptz,
      last_step integer,
      ${updatedAt},
      ${tenantKey('user_id')},
      ${userForeignKey()}
    )`,
    sql`CREATE TABLE mfa_recovery_codes (
      tenancy_id uuid NOT NULL,
      user_id uuid NOT NULL,
      id uuid NOT NULL,
      code_hash text NOT NULL,
      used_at timestamptz,
      ${createdAt},
      ${tenantKey('id')},
      ${userForeignKey()}
    )`,
    // A code is looked up by (tenancy, user, hash): one probe, and never across users or projects.
    sql`CREATE UNIQUE INDEX mfa_recovery_codes_lookup_idx ON mfa_recovery_codes (tenancy_id, user_id, code_hash)`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['mfa_recovery_codes', 'mfa_totp']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)} CASCADE`.execute(db);
  }
}
