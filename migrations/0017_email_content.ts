import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements, tenancyAndId, tenantKey, updatedAt } from './lib/columns.js';

/**
 * Owner-written email content (issue 17 items 1-3).
 *
 * - email_themes: a project's themes (TSX exporting EmailTheme). The built-in themes ("Default
 *   Light", "Default Dark") live in code with fixed ids; a row with one of those ids is the
 *   project's edited copy of it.
 * - email_templates: a project's templates. `type` names the built-in email a row replaces
 *   (email_verification, password_reset, ...; unique per tenancy), or is null for the owner's own. theme_mode says
 *   which theme wraps it: the project's (`project`), none, or theme_id (`custom`).
 * - email_drafts: one-off emails written in the console, sent once through send-email.
 * - email_sent: every email send-email rendered for a user (or skipped, with why), keyed by the
 *   id of its outbox email; html and text are sealed like the outbox's bodies.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const themeMode = (column: string) => sql.raw(`${column} text NOT NULL DEFAULT 'project' CHECK (${column} IN ('project', 'none', 'custom'))`);
  const statements = [
    sql`CREATE TABLE email_themes (
      ${tenancyAndId()},
      display_name text NOT NULL,
      tsx_source text NOT NULL,
      ${createdAt},
      ${updatedAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE TABLE email_templates (
      ${tenancyAndId()},
      type text,
      display_name text NOT NULL,
      tsx_source text NOT NULL,
      ${themeMode('theme_mode')},
      theme_id uuid,
      ${createdAt},
      ${updatedAt},
      ${tenantKey('id')},
      UNIQUE (tenancy_id, type)
    )`,
    sql`CREATE TABLE email_drafts (
      ${tenancyAndId()},
      display_name text NOT NULL,
      tsx_source text NOT NULL,
      ${themeMode('theme_mode')},
      theme_id uuid,
      sent_at timestamptz,
      ${createdAt},
      ${updatedAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE TABLE email_sent (
      ${tenancyAndId()},
      "to" text,
      user_id uuid,
      subject text NOT NULL DEFAULT '',
      html text,
      text text,
      headers text,
      sent_at timestamptz,
      error text,
      draft_id uuid,
      template_id uuid,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE INDEX email_sent_created_idx ON email_sent (tenancy_id, created_at, id)`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['email_sent', 'email_drafts', 'email_templates', 'email_themes']) await sql`DROP TABLE IF EXISTS ${sql.ref(table)}`.execute(db);
}
