import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements, tenancyAndId, tenantKey, updatedAt, userForeignKey } from './lib/columns.js';

/**
 * Core tables: projects and their tenancies, internal API key sets, users with contact channels,
 * sessions (one row per refresh token), the minimal teams needed for project ownership, and the
 * deployment's JWT signing keys. Every row of user data carries tenancy_id and tenant tables use
 * composite keys (tenancy_id, id), so a foreign key can never point into another tenancy.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`,
    sql`CREATE TABLE projects (
      id text PRIMARY KEY,
      display_name text NOT NULL,
      description text,
      is_production_mode boolean NOT NULL DEFAULT false,
      logo_url text,
      full_logo_url text,
      owner_team_id uuid,
      config jsonb NOT NULL DEFAULT '{}'::jsonb,
      ${createdAt},
      ${updatedAt}
    )`,
    sql`CREATE INDEX projects_owner_team_idx ON projects (owner_team_id, created_at)`,
    sql`CREATE TABLE tenancies (
      id uuid PRIMARY KEY,
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      branch_id text NOT NULL,
      ${createdAt},
      UNIQUE (project_id, branch_id)
    )`,
    sql`CREATE TABLE api_key_sets (
      id uuid PRIMARY KEY,
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      description text NOT NULL,
      expires_at timestamptz,
      manually_revoked_at timestamptz,
      ${createdAt},
      publishable_client_key_hash text UNIQUE,
      publishable_client_key_last_four text,
      secret_server_key_hash text UNIQUE,
      secret_server_key_last_four text,
      super_secret_admin_key_hash text UNIQUE,
      super_secret_admin_key_last_four text
    )`,
    sql`CREATE INDEX api_key_sets_project_idx ON api_key_sets (project_id, created_at)`,
    sql`CREATE TABLE users (
      ${tenancyAndId()},
      display_name text,
      profile_image_url text,
      primary_email text,
      primary_email_verified boolean NOT NULL DEFAULT false,
      auth_with_email boolean NOT NULL DEFAULT false,
      password_hash text,
      client_metadata jsonb,
      client_read_only_metadata jsonb,
      server_metadata jsonb,
      is_anonymous boolean NOT NULL DEFAULT false,
      requires_totp_mfa boolean NOT NULL DEFAULT false,
      totp_secret_encrypted text,
      otp_auth_enabled boolean NOT NULL DEFAULT false,
      passkey_auth_enabled boolean NOT NULL DEFAULT false,
      selected_team_id uuid,
      signed_up_at timestamptz NOT NULL DEFAULT now(),
      last_active_at timestamptz NOT NULL DEFAULT now(),
      ${tenantKey('id')}
    )`,
    // Keyset pagination over (signed_up_at, id) in both directions.
    sql`CREATE INDEX users_list_idx ON users (tenancy_id, signed_up_at, id)`,
    // Substring search by email and display name (ILIKE '%q%') on millions of rows.
    sql`CREATE INDEX users_email_trgm_idx ON users USING gin (lower(primary_email) gin_trgm_ops)`,
    sql`CREATE INDEX users_display_name_trgm_idx ON users USING gin (lower(display_name) gin_trgm_ops)`,
    // The primary email is denormalised onto users for reads; contact_channels is the source of
    // truth for uniqueness: one auth email per tenancy, one primary per user.
    sql`CREATE TABLE contact_channels (
      tenancy_id uuid NOT NULL,
      id uuid NOT NULL,
      user_id uuid NOT NULL,
      type text NOT NULL DEFAULT 'email',
      value text NOT NULL,
      is_primary boolean NOT NULL DEFAULT false,
      is_verified boolean NOT NULL DEFAULT false,
      used_for_auth boolean NOT NULL DEFAULT false,
      ${createdAt},
      ${tenantKey('id')},
      ${userForeignKey()}
    )`,
    sql`CREATE UNIQUE INDEX contact_channels_auth_idx ON contact_channels (tenancy_id, type, lower(value)) WHERE used_for_auth`,
    sql`CREATE UNIQUE INDEX contact_channels_primary_idx ON contact_channels (tenancy_id, user_id, type) WHERE is_primary`,
    sql`CREATE UNIQUE INDEX contact_channels_user_value_idx ON contact_channels (tenancy_id, user_id, type, lower(value))`,
    sql`CREATE TABLE sessions (
      tenancy_id uuid NOT NULL,
      id uuid NOT NULL,
      user_id uuid NOT NULL,
      refresh_token_hash text NOT NULL,
      is_impersonation boolean NOT NULL DEFAULT false,
      ${createdAt},
      last_used_at timestamptz NOT NULL DEFAULT now(),
      last_used_ip text,
      expires_at timestamptz,
      ${tenantKey('id')},
      ${userForeignKey()}
    )`,
    sql`CREATE UNIQUE INDEX sessions_refresh_token_hash_idx ON sessions (refresh_token_hash)`,
    sql`CREATE INDEX sessions_user_idx ON sessions (tenancy_id, user_id, created_at)`,
    sql`CREATE TABLE teams (
      ${tenancyAndId()},
      display_name text NOT NULL,
      profile_image_url text,
      client_metadata jsonb,
      client_read_only_metadata jsonb,
      server_metadata jsonb,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE INDEX teams_list_idx ON teams (tenancy_id, created_at, id)`,
    sql`CREATE TABLE team_members (
      tenancy_id uuid NOT NULL,
      team_id uuid NOT NULL,
      user_id uuid NOT NULL,
      display_name text,
      profile_image_url text,
      ${createdAt},
      ${tenantKey('team_id', 'user_id')},
      FOREIGN KEY (tenancy_id, team_id) REFERENCES teams (tenancy_id, id) ON DELETE CASCADE,
      ${userForeignKey()}
    )`,
    sql`CREATE INDEX team_members_user_idx ON team_members (tenancy_id, user_id)`,
    sql`CREATE TABLE signing_keys (
      kid text PRIMARY KEY,
      public_jwk jsonb NOT NULL,
      private_jwk_encrypted text NOT NULL,
      ${createdAt}
    )`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['signing_keys', 'team_members', 'teams', 'sessions', 'contact_channels', 'users', 'api_key_sets', 'tenancies', 'projects']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)} CASCADE`.execute(db);
  }
}
