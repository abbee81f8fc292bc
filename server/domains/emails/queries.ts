import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { EmailOutboxTable } from '../../db/schema.js';
import { effectiveConfig, type EmailServerConfig } from '../../../contract/config/project-config.js';
import type { Executor } from '../../db/executor.js';
import { EMAIL_OUTBOX_COLUMNS } from '../../db/columns.js';

export type OutboxRow = Selectable<EmailOutboxTable>;

export type NewEmail = Pick<OutboxRow, 'id' | 'tenancy_id' | 'to_email' | 'subject' | 'html' | 'text'>;

/** The email's record; its delivery job is queued with it (delivery.ts, enqueueEmail). */
export async function insertEmail(db: Executor, email: NewEmail): Promise<void> {
  // Millisecond precision, so the list's keyset cursor (millis + id) round-trips exactly.
  await db
    .insertInto('email_outbox')
    .values({ ...email, state: 'pending', attempts: 0, created_at: new Date() })
    .execute();
}

/** Many emails' records in one statement (send-email's batches); their delivery jobs are queued with them. */
export async function insertEmails(db: Executor, emails: NewEmail[]): Promise<void> {
  if (emails.length === 0) return;
  const createdAt = new Date();
  await db
    .insertInto('email_outbox')
    .values(emails.map((email) => ({ ...email, state: 'pending' as const, attempts: 0, created_at: createdAt })))
    .execute();
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
 * A queued email, for its delivery job (whose id it shares; the job carries no tenancy check of its
 * own, it was written with the email), undefined once the email is settled or gone; with the SMTP
 * headers send-email decided for it (its sent-list row, same tenancy and id: one-click
 * unsubscribe), in one statement: one round trip per delivery, not two.
 */
export async function findQueuedEmailWithHeaders(db: Executor, id: string): Promise<(OutboxRow & { sent_headers: string | null }) | undefined> {
  return db
    .selectFrom('email_outbox')
    .leftJoin('email_sent', (join) => join.onRef('email_sent.tenancy_id', '=', 'email_outbox.tenancy_id').onRef('email_sent.id', '=', 'email_outbox.id'))
    .selectAll('email_outbox')
    .select('email_sent.headers as sent_headers')
    .where('email_outbox.id', '=', id)
    .where('email_outbox.state', '=', 'pending')
    .executeTakeFirst();
}

/**
 * Records what the delivery job's attempts did on the email's row, while it is still pending (the
 * job worker calls it only in the transaction that settles the job, and only for the worker that
 * held the job's lease).
 */
export async function recordOutcome(
  db: Executor,
  id: string,
  patch:
    | { state: 'sent'; sent_at: RawBuilder<Date>; error: null; attempts: number }
    | { state: 'failed' | 'not-delivered'; error: string; attempts: number }
    | { error: string; attempts: number },
): Promise<void> {
  await db.updateTable('email_outbox').set(patch).where('id', '=', id).where('state', '=', 'pending').execute();
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
export async function listEmails(
  db: Executor,
  tenancyId: string,
  options: { limit: number; before: { createdAt: Date; id: string } | null },
): Promise<OutboxRow[]> {
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

/**
 * An email sent right away, outside the outbox's jobs (a preview), recorded with its outcome so
 * the console's list shows it beside the rest: sent, or failed with the reason the caller was told.
 */
export async function insertSettledEmail(db: Executor, email: NewEmail & { state: 'sent' | 'failed'; error: string | null }): Promise<void> {
  await db
    .insertInto('email_outbox')
    .values({ ...email, attempts: 1, sent_at: email.state === 'sent' ? new Date() : null, created_at: new Date() })
    .execute();
}
