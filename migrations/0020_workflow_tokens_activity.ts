import { type Kysely, sql } from 'kysely';
import { createdAt, dropTables, runStatements, tenancyAndId, tenantKey } from './lib/columns.js';

/**
 * Workflow tokens and the daily activity history (issue 19 items 5 and 7). The webhook-service
 * token is a signed JWT (no table).
 *
 * - workflow_tokens: server access for one project's automations, presented in
 *   x-latch-workflow-token. Only the SHA-256 of the token is stored; every token expires.
 * - user_daily_activity: one row per (tenancy, UTC day, user) the user was active, written by the
 *   throttled last-active update (at most once a minute per user, ON CONFLICT DO NOTHING), so daily
 *   active users is a real history. No foreign key to users: a deleted user's days stay counted
 *   (the row holds only a random id); the tenancy's deletion removes them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE workflow_tokens (
      ${tenancyAndId()},
      token_hash text NOT NULL,
      description text NOT NULL DEFAULT '',
      ${createdAt},
      expires_at timestamptz NOT NULL,
      ${tenantKey('id')}
    )`,
    sql`CREATE UNIQUE INDEX workflow_tokens_hash_idx ON workflow_tokens (tenancy_id, token_hash)`,
    sql`CREATE TABLE user_daily_activity (
      tenancy_id uuid NOT NULL REFERENCES tenancies (id) ON DELETE CASCADE,
      day date NOT NULL,
      user_id uuid NOT NULL,
      ${tenantKey('day', 'user_id')}
    )`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropTables(db, ['user_daily_activity', 'workflow_tokens']);
}
