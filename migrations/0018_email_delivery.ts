import { type Kysely, sql } from 'kysely';
import { createdAt, dropTables, runStatements, tenancyAndId, tenantKey, updatedAt, userForeignKey } from './lib/columns.js';

/**
 * Notification categories and preferences, AI chat threads (issue 17 items 4 and 6).
 *
 * - notification_categories: the categories an owner adds beside the two built-in ones
 *   (Transactional, Marketing: fixed ids in code, never rows). Rows, not project config: a
 *   preference points at a category by id, deleting a category deletes its preferences in the same
 *   transaction (the foreign key), and a link in an email already sent keeps naming the same id.
 * - notification_preferences: a user's choice per category; no row means the category's default.
 *   No foreign key to notification_categories: the built-in categories have no row.
 * - ai_chat_messages: the messages of the console's AI drafting threads, per project (the
 *   thread id is the console's; a thread is its messages).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE notification_categories (
      ${tenancyAndId()},
      name text NOT NULL,
      name_key text NOT NULL,
      can_disable boolean NOT NULL DEFAULT true,
      default_enabled boolean NOT NULL DEFAULT true,
      ${createdAt},
      ${tenantKey('id')},
      UNIQUE (tenancy_id, name_key)
    )`,
    sql`CREATE TABLE notification_preferences (
      tenancy_id uuid NOT NULL,
      user_id uuid NOT NULL,
      category_id uuid NOT NULL,
      enabled boolean NOT NULL,
      ${updatedAt},
      ${tenantKey('user_id', 'category_id')},
      ${userForeignKey()}
    )`,
    sql`CREATE TABLE ai_chat_messages (
      tenancy_id uuid NOT NULL REFERENCES tenancies (id) ON DELETE CASCADE,
      thread_id uuid NOT NULL,
      id uuid NOT NULL,
      message text NOT NULL,
      ${createdAt},
      ${tenantKey('thread_id', 'id')}
    )`,
    sql`CREATE INDEX ai_chat_messages_order_idx ON ai_chat_messages (tenancy_id, thread_id, created_at)`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropTables(db, ['ai_chat_messages', 'notification_preferences', 'notification_categories']);
}
