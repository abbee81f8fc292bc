import { type Kysely, sql } from 'kysely';

/**
 * Scheduled send-email calls (`scheduled_at_millis`, a Latch addition): one row per call that was
 * asked to go out later, so the console can list it as scheduled (and a draft show when it goes)
 * until its jobs start. The jobs themselves are ordinary send-email batches whose first attempt is
 * due at scheduled_at (jobs.run_at); the first one to run sets started_at. One DDL step; no
 * foreign key to drafts or templates (a deleted draft's send still goes out, with the source it
 * had when it was scheduled).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE email_scheduled_sends (
    tenancy_id uuid NOT NULL REFERENCES tenancies (id) ON DELETE CASCADE,
    id uuid NOT NULL,
    scheduled_at timestamptz NOT NULL,
    subject text,
    draft_id uuid,
    template_id uuid,
    recipient_count integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    PRIMARY KEY (tenancy_id, id)
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS email_scheduled_sends`.execute(db);
}
