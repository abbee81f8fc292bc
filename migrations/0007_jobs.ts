import { type Kysely, sql } from 'kysely';
import { createdAt, runStatements } from './lib/columns.js';

/**
 * One outbox for every kind of background work (issue 14 item 4): email delivery now, outbound
 * webhooks and payment-provider events next. A job is a row written in the same transaction as the
 * change that causes it, so a committed change always has its job and a rolled-back one never does;
 * a worker on every instance claims due rows with FOR UPDATE SKIP LOCKED and a lease
 * (server/jobs/queries.ts).
 *
 * - status: pending (waiting, or leased by a worker), done, or dead (gave up: out of attempts or a
 *   permanent failure). text + CHECK, not an enum (portable to Citus, YugabyteDB, CockroachDB).
 * - next_attempt_at: when the job is due; while a worker holds it, when its lease runs out (a
 *   worker killed mid-attempt leaves the job due again at that moment: nothing to recover by hand).
 *   leased_at says when the current lease was taken (null when no worker holds it).
 * - attempts: claims so far; the claim that bumps it is the fencing token of that attempt.
 * - tenancy_id: null for deployment-level work; a deleted tenancy takes its jobs with it.
 *
 * Emails keep their own record (email_outbox: recipient, sealed body, delivery state shown in the
 * console); their job has the same id and carries the scheduling, so email_outbox.next_attempt_at
 * moves here. Pending emails become pending jobs with their attempts, due time and last error, so
 * an upgrade loses none and keeps their backoff.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE jobs (
      id uuid PRIMARY KEY,
      kind text NOT NULL,
      tenancy_id uuid REFERENCES tenancies (id) ON DELETE CASCADE,
      payload jsonb NOT NULL DEFAULT '{}'::jsonb,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      leased_at timestamptz,
      last_error text,
      ${createdAt},
      finished_at timestamptz
    )`,
    // The claim query: due pending jobs, oldest due first. Finished jobs leave the index.
    sql`CREATE INDEX jobs_due_idx ON jobs (next_attempt_at) WHERE status = 'pending'`,
    // A tenancy's jobs (its deletion cascades here; lists of one kind's jobs per project).
    sql`CREATE INDEX jobs_tenancy_idx ON jobs (tenancy_id, kind, created_at)`,
    sql`INSERT INTO jobs (id, kind, tenancy_id, payload, status, attempts, next_attempt_at, last_error, created_at)
      SELECT id, 'email', tenancy_id, jsonb_build_object('email_id', id), 'pending', attempts, next_attempt_at, error, created_at
      FROM email_outbox WHERE state = 'pending'`,
    sql`DROP INDEX email_outbox_pending_idx`,
    sql`ALTER TABLE email_outbox DROP COLUMN next_attempt_at`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE email_outbox ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now()`.execute(db);
  // Pending emails keep their due time (or their lease) on the way back.
  await sql`UPDATE email_outbox SET next_attempt_at = j.next_attempt_at FROM jobs j WHERE j.id = email_outbox.id AND j.kind = 'email' AND j.status = 'pending'`.execute(
    db,
  );
  await sql`CREATE INDEX email_outbox_pending_idx ON email_outbox (next_attempt_at) WHERE state = 'pending'`.execute(db);
  await sql`DROP TABLE IF EXISTS jobs`.execute(db);
}
