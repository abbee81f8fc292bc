import { sql } from 'kysely';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import { retryDelayMs } from '../../jobs/backoff.js';
import { type ClaimedJob, defineJobKind, JobFailure, type JobSettlement } from '../../jobs/kinds.js';
import { enqueue, enqueueMany } from '../../jobs/outbox.js';
import * as q from './queries.js';
import { OutboundRefused } from './public-address.js';
import { type EmailBody, openEmailBody } from './sealed-body.js';
import { type SmtpTarget, SmtpPools, isPermanentSmtpFailure, pinTarget, smtpErrorText, smtpFailure, targetForProject } from './transport.js';

/**
 * Email delivery, the first kind of job (server/jobs/): an email is a row of email_outbox (its
 * record: recipient, sealed body, the state the console shows) plus a job of kind `email` with the
 * same id, written together in the transaction of the action that sends it (enqueueEmail). The
 * job worker delivers it over SMTP, retries temporary failures with exponential backoff (30 s,
 * doubled each time, ±25 %, at most an hour; 5 attempts), and this kind records every outcome on
 * the email's row: sent, failed with a generic reason, or not-delivered when no SMTP server is
 * configured (those stay readable in the console's inbox).
 */

export const EMAIL_MAX_ATTEMPTS = 5;
export const EMAIL_RETRY_BASE_MS = 30_000;

const UNREADABLE_BODY = 'The email body could not be decrypted (was LATCH_SECRET changed?).';
/** No SMTP server for this email: said on the row, so the console can tell the owner what to set. */
export const NOT_DELIVERED_REASON =
  'No SMTP server is configured: set LATCH_SMTP_URL for the deployment, or give the project its own email server (email_config type standard).';
/** The deployment has a shared server, but LATCH_SHARED_EMAIL does not let this project use it. */
export const SHARED_NOT_ALLOWED_REASON =
  "This deployment does not send this project's emails through its shared SMTP server (LATCH_SHARED_EMAIL): give the project its own email server (email_config type standard), or ask the operator to opt it in.";

export interface EmailJobPayload {
  email_id: string;
}

/** What one delivery did: sent, nowhere to send it (`not-delivered`), or nothing (the email is gone or already settled). */
export type EmailDelivered = { state: 'sent' } | { state: 'not-delivered'; error: string } | { state: 'skipped' };

/** Where one project's emails go this round: a pinned server, a refused one, or why nowhere. */
type Destination = SmtpTarget | OutboundRefused | string;

async function destinationOf(deps: Deps, project: q.SendingProject | null): Promise<Destination> {
  const target = targetForProject(deps, project);
  if (!target) return project && project.emailConfig.type === 'shared' && deps.env.email.smtpUrl ? SHARED_NOT_ALLOWED_REASON : NOT_DELIVERED_REASON;
  try {
    // An owner-chosen host is resolved, checked and pinned here, with the same rule as the test
    // email: a saved config cannot reach an address the test email would have refused.
    return await pinTarget(target);
  } catch (error) {
    if (error instanceof OutboundRefused) return error;
    throw error;
  }
}

/**
 * The row keeps (through the job's failure message) a generic reason (smtpFailure), never the
 * server's own words: the project's admins read it, and the server is whatever host the owner
 * named. The operator's log has the full text (the failure's detail).
 */
function deliveryFailure(error: unknown, permanent: boolean): JobFailure {
  return new JobFailure(smtpFailure(error).message, { permanent, detail: smtpErrorText(error) });
}

export const emailJobKind = defineJobKind<EmailJobPayload, EmailDelivered>({
  kind: 'email',
  title: 'email delivery',
  // Its own lane, 50 a round: a send to ten thousand users drains through the project's SMTP pool
  // without holding up webhooks, and built-in emails (sign-in codes) are never behind a render.
  lane: 'email',
  batchSize: 50,
  maxAttempts: EMAIL_MAX_ATTEMPTS,
  backoff: (failedAttempts) => retryDelayMs(failedAttempts, EMAIL_RETRY_BASE_MS),
  parse: (payload) => {
    const emailId = (payload as { email_id?: unknown } | null)?.email_id;
    if (typeof emailId !== 'string') throw new Error('no email_id');
    return { email_id: emailId };
  },

  async handle(job, { deps, perRound, resource }) {
    const row = await q.findQueuedEmailWithHeaders(deps.db, job.payload.email_id);
    if (!row) return { state: 'skipped' };
    // One resolution per project and round: an owner-chosen host is resolved, checked and pinned
    // here (pinTarget), with the same rule as the test email, so a saved config cannot reach a
    // private address that the test email would have refused.
    const destination = await perRound(`email-destination:${row.tenancy_id ?? ''}`, async () =>
      destinationOf(deps, row.tenancy_id ? await q.findSendingProject(deps.db, row.tenancy_id) : null),
    );
    // A refused address or port stays refused until the owner changes the config: not retried.
    // A name that does not resolve may resolve later: retried like a connection failure.
    if (destination instanceof OutboundRefused) throw deliveryFailure(destination, destination.reason !== 'not-resolved');
    if (typeof destination === 'string') return { state: 'not-delivered', error: destination };
    let body: EmailBody;
    try {
      body = openEmailBody(deps.env.secret, row.id, row);
    } catch {
      // Sealed under another LATCH_SECRET (or altered): it can never be sent; say so, do not retry.
      throw new JobFailure(UNREADABLE_BODY, { permanent: true });
    }
    const pools = resource(
      'email-smtp-pools',
      () => new SmtpPools(),
      (held) => held.close(),
    );
    // send-email's messages carry the headers the notification rules chose (one-click unsubscribe).
    const headers = row.sent_headers ? (JSON.parse(row.sent_headers) as Record<string, string>) : null;
    try {
      await pools.send(destination, { id: row.id, to: row.to_email, subject: row.subject, ...body, ...(headers ? { headers } : {}) });
    } catch (error) {
      throw deliveryFailure(error, isPermanentSmtpFailure(error));
    }
    return { state: 'sent' };
  },

  settle: (trx, job, settlement) => recordEmailOutcome(trx, job, settlement),
});

/** The email's row says what the job's attempts did: the console's state, attempts and reason. */
async function recordEmailOutcome(trx: Executor, job: ClaimedJob<EmailJobPayload>, settlement: JobSettlement<EmailDelivered>): Promise<void> {
  const attempts = job.attempts;
  if (settlement.status === 'done') {
    const { result } = settlement;
    if (result.state === 'skipped') return;
    const patch =
      result.state === 'sent'
        ? { state: 'sent' as const, sent_at: sql<Date>`now()`, error: null, attempts }
        : { state: 'not-delivered' as const, error: result.error, attempts };
    return q.recordOutcome(trx, job.payload.email_id, patch);
  }
  return q.recordOutcome(
    trx,
    job.payload.email_id,
    settlement.status === 'retry' ? { error: settlement.error, attempts } : { state: 'failed', error: settlement.error, attempts },
  );
}

/**
 * Queues an email: its row and its delivery job (same id), in the caller's transaction, so a
 * rolled-back action sends nothing and a committed one always has its job. The body is sealed.
 */
export async function enqueueEmail(trx: Executor, email: q.NewEmail): Promise<void> {
  await q.insertEmail(trx, email);
  await enqueue(trx, emailJobKind, { email_id: email.id }, { id: email.id, tenancyId: email.tenancy_id });
}

/** enqueueEmail for many emails: their rows in one statement and their jobs in another, in the caller's transaction. */
export async function enqueueEmails(trx: Executor, emails: q.NewEmail[]): Promise<void> {
  if (emails.length === 0) return;
  await q.insertEmails(trx, emails);
  await enqueueMany(
    trx,
    emailJobKind,
    emails.map((email) => ({ payload: { email_id: email.id }, options: { id: email.id, tenancyId: email.tenancy_id } })),
  );
}
