import { type Kysely, sql } from 'kysely';
import { runStatements } from './lib/columns.js';

/**
 * Every unique key of a tenant table leads with tenancy_id (issue 21 item 5), so that on a
 * distributed engine with tenancy as the distribution column (Citus) each key is enforced on one
 * shard. Three secret-hash keys were global: the refresh token's, a user/team API key's and a
 * verification code's. Every lookup already names the tenancy (sessions/queries.ts,
 * user-team-api-keys/queries.ts, verification/queries.ts), so the new keys serve them as the old
 * ones did. Uniqueness across projects is given up: two random 224-bit secrets do not collide.
 * One DDL statement per step (some engines refuse several in one transaction's statement).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE UNIQUE INDEX sessions_tenancy_refresh_token_hash_idx ON sessions (tenancy_id, refresh_token_hash)`,
    sql`DROP INDEX sessions_refresh_token_hash_idx`,
    sql`CREATE UNIQUE INDEX user_team_api_keys_tenancy_secret_idx ON user_team_api_keys (tenancy_id, secret_hash)`,
    sql`DROP INDEX user_team_api_keys_secret_idx`,
    sql`CREATE UNIQUE INDEX verification_codes_tenancy_code_hash_idx ON verification_codes (tenancy_id, code_hash)`,
    sql`ALTER TABLE verification_codes DROP CONSTRAINT verification_codes_code_hash_key`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`ALTER TABLE verification_codes ADD CONSTRAINT verification_codes_code_hash_key UNIQUE (code_hash)`,
    sql`DROP INDEX verification_codes_tenancy_code_hash_idx`,
    sql`CREATE UNIQUE INDEX user_team_api_keys_secret_idx ON user_team_api_keys (secret_hash)`,
    sql`DROP INDEX user_team_api_keys_tenancy_secret_idx`,
    sql`CREATE UNIQUE INDEX sessions_refresh_token_hash_idx ON sessions (refresh_token_hash)`,
    sql`DROP INDEX sessions_tenancy_refresh_token_hash_idx`,
  ];
  await runStatements(db, statements);
}
