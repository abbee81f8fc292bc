import { type Selectable, sql } from 'kysely';
import type { Database } from '../../db/kysely.js';
import type { EmailOutboxTable } from '../../db/schema.js';
import { effectiveConfig, type EmailServerConfig } from '../../../contract/config/project-config.js';
import type { Executor } from '../../db/executor.js';
import { EMAIL_OUTBOX_COLUMNS } from '../../db/columns.js';

export type OutboxRow = Selectable<EmailOutboxTable>;

export async function insertEmail(
  db: Executor,
  email: { id: string; tenancy_id: string | null; to_email: string; subject: string; html: string; text: string },
): Promise<void> {
  // Millisecond precision, so the list's keyset cursor (millis + id) round-trips exactly.
  await db.insertInto('email_outbox').values({ ...email, state: 'pending', attempts: 0, created_at: new Date() }).execute();
}

/** How many emails the tenancy queued in the last hour, and when the oldest of them was queued. */
export async function recentEmailCount(db: Executor, tenancyId: string): Promise<{ count: number; oldest: Date | null }> {
  const row = await db
    .selectFrom('email_outbox')
    .select([sql<number>`count(*)::int`.as('count'), sql<Date | null>`min(created_at)`.as('oldest')])
    .where('tenancy_id', '=', tenancyId)
    .where('created_at', '>', sql<Date>`now() - interval '1 hour'`)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : new Date(row.oldest) };
}

/**
 * Claims up to `limit` due pending emails for this worker: locks them with FOR UPDATE SKIP LOCKED
 * (another instance's worker skips them instead of waiting or sending them twice), counts the
 * attempt and leases them by moving next_attempt_at past `leaseMillis` (error is cleared: it always
 * describes the last finished attempt), then commits. The SMTP
 * conversation happens after the commit, with no lock held; if this worker dies mid-send, the
 * email becomes due again when the lease runs out.
 */
export async function claimDueEmails(db: Database, limit: number, leaseMillis: number): Promise<OutboxRow[]> {
  // The usual answer is "nothing due": one indexed read, no transaction, no lock.
  const anyDue = await db.selectFrom('email_outbox').select('id').where('state', '=', 'pending').where('next_attempt_at', '<=', sql<Date>`now()`).limit(1).executeTakeFirst();
  if (!anyDue) return [];
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('email_outbox')
      .select('id')
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', sql<Date>`now()`)
      .orderBy('next_attempt_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    return trx
      .updateTable('email_outbox')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: sql<Date>`now() + ${`${leaseMillis} milliseconds`}::interval`, error: null }))
      .where('id', 'in', due.map((row) => row.id))
      .returningAll()
      .execute();
  });
}

/**
 * Records the outcome of one claimed attempt. Only while the row is still the one this worker
 * claimed (pending, same attempt count): a worker whose lease ran out cannot overwrite the outcome
 * of the one that took over.
 */
export async function recordOutcome(
  db: Executor,
  claimed: { id: string; attempts: number },
  outcome: { state: 'sent' } | { state: 'failed' | 'not-delivered'; error: string } | { state: 'pending'; error: string; retryAt: Date },
): Promise<void> {
  const patch =
    outcome.state === 'sent'
      ? { state: 'sent' as const, sent_at: sql<Date>`now()`, error: null }
      : outcome.state === 'pending'
        ? { error: outcome.error, next_attempt_at: outcome.retryAt }
        : { state: outcome.state, error: outcome.error };
  await db.updateTable('email_outbox').set(patch).where('id', '=', claimed.id).where('state', '=', 'pending').where('attempts', '=', claimed.attempts).execute();
}

export interface SendingProject {
  id: string;
  displayName: string;
  emailConfig: EmailServerConfig;
}

/** The project an email of this tenancy is sent for (its name and email server config). */
export async function findSendingProject(db: Executor, tenancyId: string): Promise<SendingProject | null> {
  const row = await db
    .selectFrom('tenancies as t')
    .innerJoin('projects as p', 'p.id', 't.project_id')
    .select(['p.id', 'p.display_name', 'p.config'])
    .where('t.id', '=', tenancyId)
    .executeTakeFirst();
  return row ? { id: row.id, displayName: row.display_name, emailConfig: effectiveConfig(row.config).email_config } : null;
}

/** A page of a tenancy's emails, newest first, after the keyset cursor (created_at, id). */
export async function listEmails(db: Executor, tenancyId: string, options: { limit: number; before: { createdAt: Date; id: string } | null }): Promise<OutboxRow[]> {
  let query = db.selectFrom('email_outbox').select(EMAIL_OUTBOX_COLUMNS).where('tenancy_id', '=', tenancyId);
  if (options.before) {
    const { createdAt, id } = options.before;
    query = query.where(sql<boolean>`(created_at, id) < (${createdAt}, ${id})`);
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

export async function findEmail(db: Executor, tenancyId: string, id: string): Promise<OutboxRow | undefined> {
  return db.selectFrom('email_outbox').select(EMAIL_OUTBOX_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
}
