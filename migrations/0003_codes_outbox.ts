import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements, tenancyAndId, tenantKey } from './lib/columns.js';

/**
 * The two tables every code-based flow and every email share (team invitations now; email
 * verification, password reset, magic links and the delivery worker in the email issue).
 *
 * - verification_codes: one row per code, for any purpose. Only the SHA-256 of the code is stored
 *   (unique, so a lookup is one index probe); `data` is the purpose's payload.
 * - email_outbox: an email is a row written in the same transaction as the action that caused it;
 *   a worker delivers `pending` rows and records the outcome. tenancy_id is null for
 *   deployment-level mail.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE verification_codes (
      ${tenancyAndId()},
      purpose text NOT NULL,
      code_hash text NOT NULL UNIQUE,
      data jsonb NOT NULL DEFAULT '{}'::jsonb,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      attempt_count integer NOT NULL DEFAULT 0,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    // Clean-up of expired codes.
    sql`CREATE INDEX verification_codes_expires_idx ON verification_codes (expires_at)`,
    sql`CREATE TABLE email_outbox (
      id uuid PRIMARY KEY,
      tenancy_id uuid REFERENCES tenancies (id) ON DELETE CASCADE,
      to_email text NOT NULL,
      subject text NOT NULL,
      html text NOT NULL,
      text text NOT NULL,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed', 'not-delivered')),
      attempts integer NOT NULL DEFAULT 0,
      error text,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      ${createdAt}
    )`,
    // The worker's queue: due pending rows, oldest first.
    sql`CREATE INDEX email_outbox_pending_idx ON email_outbox (next_attempt_at) WHERE state = 'pending'`,
    // A project's sent-email list, newest first.
    sql`CREATE INDEX email_outbox_tenancy_idx ON email_outbox (tenancy_id, created_at)`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['email_outbox', 'verification_codes']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)} CASCADE`.execute(db);
  }
}
