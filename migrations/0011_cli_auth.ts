import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements, tenancyAndId, tenantKey, userForeignKey } from './lib/columns.js';

/**
 * CLI login requests (issue 16; README "CLI login"). One row per `POST /auth/cli`:
 * - polling_code_hash / login_code_hash: only SHA-256 of the two 224-bit codes is stored (unique
 *   per tenancy, so each lookup is one index probe). The CLI keeps the polling code, the browser gets the login
 *   code in the confirm link.
 * - state: waiting → approved | denied (the confirm page) → used (the poll that picked up the
 *   session). The session itself is started only by that poll: no refresh token is ever stored
 *   here, sealed or not.
 * - approved_user_id: who approved (a user of the same tenancy; deleting the user deletes the row).
 * - last_polled_at: the per-code minimum poll interval (slow_down) is judged against it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE cli_auth_attempts (
      ${tenancyAndId()},
      polling_code_hash text NOT NULL,
      login_code_hash text NOT NULL,
      state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'approved', 'denied', 'used')),
      approved_user_id uuid,
      requester_ip text,
      expires_at timestamptz NOT NULL,
      last_polled_at timestamptz,
      decided_at timestamptz,
      used_at timestamptz,
      ${createdAt},
      ${tenantKey('id')},
      ${userForeignKey('approved_user_id')}
    )`,
    // Each lookup is one index probe, within the tenancy (keys lead with tenancy_id: portable-schema.test.ts).
    sql`CREATE UNIQUE INDEX cli_auth_attempts_polling_code_idx ON cli_auth_attempts (tenancy_id, polling_code_hash)`,
    sql`CREATE UNIQUE INDEX cli_auth_attempts_login_code_idx ON cli_auth_attempts (tenancy_id, login_code_hash)`,
    // Clean-up of old requests.
    sql`CREATE INDEX cli_auth_attempts_expires_idx ON cli_auth_attempts (expires_at)`,
    // Issue 16 makes otp_auth_enabled real (auth/magic-link.ts refuses a magic link when it is
    // off), and new users with a sign-in email now get it on. Users made before had it off only
    // because nothing read it, while magic links signed them in: keep that working for them.
    sql`UPDATE users SET otp_auth_enabled = true WHERE auth_with_email AND NOT otp_auth_enabled`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS cli_auth_attempts CASCADE`.execute(db);
}
