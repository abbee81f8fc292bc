import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements, tenancyAndId, tenantKey, userForeignKey } from './lib/columns.js';

/**
 * OAuth sign-in, linking and connected accounts (issue 15).
 *
 * - oauth_accounts: a provider account connected to a user: (tenancy, provider config id,
 *   provider account id). One account id may be connected to several users (the server may add
 *   one), but only one of those rows may sign in (the partial unique index; the spec's
 *   OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN). A user holds one row per provider account.
 * - oauth_tokens: the provider's access and refresh tokens of an account, sealed (AES-GCM,
 *   'oauth-tokens' key, bound to the row), with their scopes and expiry; is_valid false once the
 *   provider refused or rotated them.
 * - oauth_flows: one in-flight authorize request (the "outer" request of the app and the "inner"
 *   one Latch makes to the provider). Only hashes of the inner state and of the browser cookie are
 *   stored; the PKCE verifier, nonce and outer parameters are sealed. Single use (consumed_at).
 * - oauth_codes: the authorization codes Latch hands back to the app's redirect_uri, hashed, single
 *   use, minutes long; the session they redeem is sealed in the row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE oauth_accounts (
      tenancy_id uuid NOT NULL,
      id uuid NOT NULL,
      user_id uuid NOT NULL,
      provider_config_id text NOT NULL,
      provider_account_id text NOT NULL,
      email text,
      allow_sign_in boolean NOT NULL DEFAULT true,
      allow_connected_accounts boolean NOT NULL DEFAULT true,
      ${createdAt},
      ${tenantKey('id')},
      ${userForeignKey()}
    )`,
    sql`CREATE UNIQUE INDEX oauth_accounts_sign_in_idx ON oauth_accounts (tenancy_id, provider_config_id, provider_account_id) WHERE allow_sign_in`,
    sql`CREATE UNIQUE INDEX oauth_accounts_user_idx ON oauth_accounts (tenancy_id, user_id, provider_config_id, provider_account_id)`,
    sql`CREATE TABLE oauth_tokens (
      tenancy_id uuid NOT NULL,
      id uuid NOT NULL,
      oauth_account_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
      token_sealed text NOT NULL,
      scopes text[] NOT NULL DEFAULT '{}',
      expires_at timestamptz,
      is_valid boolean NOT NULL DEFAULT true,
      ${createdAt},
      ${tenantKey('id')},
      FOREIGN KEY (tenancy_id, oauth_account_id) REFERENCES oauth_accounts (tenancy_id, id) ON DELETE CASCADE
    )`,
    sql`CREATE INDEX oauth_tokens_account_idx ON oauth_tokens (tenancy_id, oauth_account_id, kind) WHERE is_valid`,
    sql`CREATE TABLE oauth_flows (
      ${tenancyAndId()},
      state_hash text NOT NULL UNIQUE,
      cookie_hash text NOT NULL,
      provider_config_id text NOT NULL,
      sealed text NOT NULL,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE INDEX oauth_flows_expires_idx ON oauth_flows (expires_at)`,
    sql`CREATE TABLE oauth_codes (
      ${tenancyAndId()},
      code_hash text NOT NULL,
      redirect_uri text NOT NULL,
      code_challenge text NOT NULL,
      sealed text NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE UNIQUE INDEX oauth_codes_code_idx ON oauth_codes (tenancy_id, code_hash)`,
    sql`CREATE INDEX oauth_codes_expires_idx ON oauth_codes (expires_at)`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['oauth_codes', 'oauth_flows', 'oauth_tokens', 'oauth_accounts']) await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
}
