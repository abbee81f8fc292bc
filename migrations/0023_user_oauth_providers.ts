import { type Kysely, sql } from 'kysely';

/**
 * The user's connected OAuth accounts as the user object shows them (`oauth_providers`: id, type,
 * provider_user_id, oldest first), copied onto the users row, so every user object comes from its
 * row alone: GET /users/me reads one users row joined to its session instead of running an
 * aggregate subquery over oauth_accounts on every call (about a quarter less PostgreSQL CPU per
 * /users/me in bench/ab.ts), and user lists, member profiles and webhook payloads need no second query.
 * NULL when the user has none.
 * oauth/queries.ts keeps it in the same transaction as every write to oauth_accounts (no trigger:
 * the schema stays portable, db/portable-schema.test.ts). Two steps: the column, then the copy of
 * the accounts that exist.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN oauth_providers jsonb`.execute(db);
  await sql`UPDATE users u SET oauth_providers = agg.list
    FROM (SELECT tenancy_id, user_id,
                 jsonb_agg(jsonb_build_object('id', provider_config_id, 'type', provider_config_id, 'provider_user_id', provider_account_id)
                           ORDER BY created_at, id) AS list
          FROM oauth_accounts GROUP BY tenancy_id, user_id) agg
    WHERE u.tenancy_id = agg.tenancy_id AND u.id = agg.user_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE users DROP COLUMN IF EXISTS oauth_providers`.execute(db);
}
