import { type Kysely, sql } from 'kysely';
import { createdAt, dropTables, runStatements, tenancyAndId, tenantKey } from './lib/columns.js';

/**
 * Outbound webhooks (issue 19 item 2), delivered from PostgreSQL through the jobs outbox.
 *
 * - webhook_endpoints: where a project's events go. The signing secret is sealed (AES-GCM, bound
 *   to the endpoint); during a rotation the previous secret stays (sealed) until
 *   previous_secret_expires_at, and deliveries carry both signatures until then. event_types NULL
 *   means every event. failing_since is when the current run of failed deliveries began: an
 *   endpoint failing for days is disabled (disabled_reason says why).
 * - webhook_messages: one event, written in the same transaction as the change it announces
 *   (a rolled-back change leaves no event). Its id is the `webhook-id` receivers dedupe on.
 * - webhook_deliveries: one per (message, endpoint), each with its delivery job (same id); the
 *   job owns the schedule, the row is the log the console shows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE webhook_endpoints (
      ${tenancyAndId()},
      url text NOT NULL,
      description text NOT NULL DEFAULT '',
      event_types text,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      secret_sealed text NOT NULL,
      previous_secret_sealed text,
      previous_secret_expires_at timestamptz,
      failing_since timestamptz,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE TABLE webhook_messages (
      ${tenancyAndId('text')},
      event_type text NOT NULL,
      payload text NOT NULL,
      ${createdAt},
      ${tenantKey('id')}
    )`,
    sql`CREATE INDEX webhook_messages_created_idx ON webhook_messages (tenancy_id, created_at)`,
    sql`CREATE TABLE webhook_deliveries (
      ${tenancyAndId()},
      message_id text NOT NULL,
      endpoint_id uuid NOT NULL,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      last_status integer,
      last_error text,
      last_response_snippet text,
      ${createdAt},
      sent_at timestamptz,
      ${tenantKey('id')}
    )`,
    sql`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (tenancy_id, endpoint_id, created_at)`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropTables(db, ['webhook_deliveries', 'webhook_messages', 'webhook_endpoints']);
}
