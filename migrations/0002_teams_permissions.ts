import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements, tenancyAndId, tenantKey, userForeignKey } from './lib/columns.js';

/**
 * Teams grow up: permission definitions (project and team scope) with their containment graph,
 * permission grants, team invitations, and user / team API keys.
 *
 * Invariants kept by the schema:
 * - A permission id is unique per tenancy across both scopes, so an id used in the wrong scope is
 *   recognised (WRONG_PERMISSION_SCOPE) instead of looking undefined.
 * - Containment is a join table, not an array column: the recursive closure walks an index
 *   (tenancy_id, parent_id) level by level, and a cycle check is one recursive query.
 *   `child_id` has no foreign key because a custom team permission may contain a system
 *   permission ($update_team, …), which has no row; the service removes edges to a deleted id.
 * - A team permission grant belongs to a membership: leaving (or being removed from) a team drops
 *   the user's team permissions with it (ON DELETE CASCADE), so re-joining starts clean.
 * - API keys belong to exactly one user or one team and die with it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE permission_definitions (
      ${tenancyAndId('text')},
      scope text NOT NULL CHECK (scope IN ('team', 'project')),
      description text,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    // Listing one scope's definitions, in id order.
    sql`CREATE INDEX permission_definitions_scope_idx ON permission_definitions (tenancy_id, scope, id)`,
    sql`CREATE TABLE permission_inclusions (
      tenancy_id uuid NOT NULL,
      parent_id text NOT NULL,
      child_id text NOT NULL,
      ${tenantKey('parent_id', 'child_id')},
      FOREIGN KEY (tenancy_id, parent_id) REFERENCES permission_definitions (tenancy_id, id) ON DELETE CASCADE ON UPDATE CASCADE
    )`,
    // Walking upwards (who contains X?) for the cycle check, renames and deletes.
    sql`CREATE INDEX permission_inclusions_child_idx ON permission_inclusions (tenancy_id, child_id)`,
    sql`CREATE TABLE team_permission_grants (
      tenancy_id uuid NOT NULL,
      team_id uuid NOT NULL,
      user_id uuid NOT NULL,
      permission_id text NOT NULL,
      ${createdAt},
      ${tenantKey('team_id', 'user_id', 'permission_id')},
      FOREIGN KEY (tenancy_id, team_id, user_id) REFERENCES team_members (tenancy_id, team_id, user_id) ON DELETE CASCADE
    )`,
    // A user's permissions across all their teams; and every grant of one id (rename, delete).
    sql`CREATE INDEX team_permission_grants_user_idx ON team_permission_grants (tenancy_id, user_id)`,
    sql`CREATE INDEX team_permission_grants_permission_idx ON team_permission_grants (tenancy_id, permission_id)`,
    sql`CREATE TABLE project_permission_grants (
      tenancy_id uuid NOT NULL,
      user_id uuid NOT NULL,
      permission_id text NOT NULL,
      ${createdAt},
      ${tenantKey('user_id', 'permission_id')},
      ${userForeignKey()}
    )`,
    sql`CREATE INDEX project_permission_grants_permission_idx ON project_permission_grants (tenancy_id, permission_id)`,
    // The invitation is what the team sees and can revoke; the secret lives in verification_codes
    // (migration 0003) under the same id, stored hashed.
    sql`CREATE TABLE team_invitations (
      tenancy_id uuid NOT NULL,
      id uuid NOT NULL,
      team_id uuid NOT NULL,
      recipient_email text NOT NULL,
      expires_at timestamptz NOT NULL,
      ${createdAt},
      ${tenantKey('id')},
      FOREIGN KEY (tenancy_id, team_id) REFERENCES teams (tenancy_id, id) ON DELETE CASCADE
    )`,
    sql`CREATE INDEX team_invitations_team_idx ON team_invitations (tenancy_id, team_id, created_at)`,
    sql`CREATE TABLE user_team_api_keys (
      ${tenancyAndId()},
      secret_hash text NOT NULL,
      last_four text NOT NULL,
      is_public boolean NOT NULL DEFAULT false,
      description text NOT NULL,
      expires_at timestamptz,
      manually_revoked_at timestamptz,
      ${createdAt},
      user_id uuid,
      team_id uuid,
      ${tenantKey('id')},
      CHECK ((user_id IS NULL) <> (team_id IS NULL)),
      ${userForeignKey()},
      FOREIGN KEY (tenancy_id, team_id) REFERENCES teams (tenancy_id, id) ON DELETE CASCADE
    )`,
    // The check call looks a key up by its hash only.
    sql`CREATE UNIQUE INDEX user_team_api_keys_secret_idx ON user_team_api_keys (secret_hash)`,
    sql`CREATE INDEX user_team_api_keys_user_idx ON user_team_api_keys (tenancy_id, user_id, created_at) WHERE user_id IS NOT NULL`,
    sql`CREATE INDEX user_team_api_keys_team_idx ON user_team_api_keys (tenancy_id, team_id, created_at) WHERE team_id IS NOT NULL`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'user_team_api_keys',
    'team_invitations',
    'project_permission_grants',
    'team_permission_grants',
    'permission_inclusions',
    'permission_definitions',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)} CASCADE`.execute(db);
  }
}
