import { type Kysely, sql } from 'kysely';
import { runStatements } from './lib/columns.js';

/**
 * Only a proven address is an identity (ARCHITECTURE.md, "Security model"; issue 13 item 1).
 *
 * Until now one unique index made every `used_for_auth` address unique per project, verified or
 * not, so an unverified claim (a sign-up with someone else's address, or an address a client
 * attached to itself) blocked the real owner's sign-up. Now the uniqueness holds only among
 * verified sign-in addresses; unverified ones are claims that may coexist (the newest signs in
 * with its own password, and proving the address elsewhere removes them: contact-channels/claims.ts).
 * A plain index keeps the claim lookups by address fast.
 *
 * verified_by_holder on contact_channels: whether the last proof of a verified address came from
 * the account's holder (a live session of the account, the server, or a proof by code that first
 * revoked every credential the prover had not set), or from a bare code (a verification link
 * opened without a session of the account: perhaps by the address's owner, clicking a link an
 * attacker asked for). A bare-code proof still verifies, but the next proof by code treats the
 * account as unproven and strips it. Existing rows count as proven by their holder.
 *
 * created_by_user_id on user_team_api_keys: the user whose session created a team key, so that
 * signing that user out everywhere (password reset, a proof that strips foreign credentials)
 * revokes the team keys they made as well as their own user keys. NULL for keys made by the server.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE INDEX contact_channels_auth_claims_idx ON contact_channels (tenancy_id, type, lower(value)) WHERE used_for_auth`,
    sql`CREATE UNIQUE INDEX contact_channels_verified_auth_idx ON contact_channels (tenancy_id, type, lower(value)) WHERE used_for_auth AND is_verified`,
    sql`DROP INDEX contact_channels_auth_idx`,
    sql`ALTER TABLE contact_channels ADD COLUMN verified_by_holder boolean NOT NULL DEFAULT true`,
    sql`ALTER TABLE user_team_api_keys ADD COLUMN created_by_user_id uuid`,
    sql`CREATE INDEX user_team_api_keys_creator_idx ON user_team_api_keys (tenancy_id, created_by_user_id) WHERE created_by_user_id IS NOT NULL`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS user_team_api_keys_creator_idx`.execute(db);
  await sql`ALTER TABLE user_team_api_keys DROP COLUMN IF EXISTS created_by_user_id`.execute(db);
  await sql`ALTER TABLE contact_channels DROP COLUMN IF EXISTS verified_by_holder`.execute(db);
  // Fails while two accounts claim one address: the old rule cannot hold such data.
  await sql`CREATE UNIQUE INDEX IF NOT EXISTS contact_channels_auth_idx ON contact_channels (tenancy_id, type, lower(value)) WHERE used_for_auth`.execute(db);
  await sql`DROP INDEX IF EXISTS contact_channels_verified_auth_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS contact_channels_auth_claims_idx`.execute(db);
}
