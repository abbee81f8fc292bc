import { randomUUID } from 'node:crypto';
import type { Executor } from '../db/executor.js';
import type { JobKind } from './kinds.js';
import { insertJob, insertJobs } from './queries.js';

/**
 * The outbox: background work (email delivery; next, outbound webhooks and payment-provider events)
 * as rows of one `jobs` table (migration 0007), written in the same transaction as the change that
 * causes them and run by one worker per instance (worker.ts) that claims due jobs with a lease,
 * retries failures with backoff, gives up after the kind's attempts (status `dead`) and picks up
 * jobs whose worker died mid-attempt once their lease runs out. A kill -9 loses no job: a job
 * exists exactly when its change committed, and stays pending until an attempt settles it.
 * Delivery is at-least-once (an attempt cut off by a crash is made again), so handlers must be
 * safe to repeat; a settled job is settled by one worker only (the attempt count fences the lease).
 *
 * Why emails keep their own table (email_outbox) instead of moving into `jobs`: the email row is
 * the email's record, not a queue entry. The console lists it per project with a keyset cursor,
 * shows its state in its own words (`sent`, `failed`, `not-delivered` when no SMTP server is set),
 * its attempts and a reason safe to show, and opens its sealed body, which is bound to the email's
 * id (sealed-body.ts). A queue wants none of that: its rows are short-lived, can be pruned once
 * settled, and look the same for every kind. So an email's job has the email's id, a payload of
 * `{ email_id }`, and the scheduling (attempts, due time, lease, last error); the email kind's
 * settle hook writes the outcome onto the email row in the transaction that settles the job
 * (domains/emails/delivery.ts). Webhooks and payment events will do the same with their delivery
 * records. Migration 0007 turned every pending email into a pending job (same attempts, due time
 * and error), so an upgrade loses none, and dropped email_outbox.next_attempt_at, which the job
 * now owns.
 */

export interface EnqueueOptions {
  /** The job's id (default: a new UUID); an email's job has the email's id. */
  id?: string;
  /** The tenancy the job works for; null for deployment-level work. */
  tenancyId: string | null;
  /** When the first attempt is due (default: now). */
  runAt?: Date;
}

/**
 * Queues a job of `kind`, in the caller's transaction: it exists if and only if that transaction
 * commits. Returns the job's id.
 *
 * @example
 * await deps.db.transaction().execute(async (trx) => {
 *   const id = await insertWebhookDelivery(trx, …);
 *   await enqueue(trx, webhookJobKind, { delivery_id: id }, { tenancyId: tenancy.id });
 * });
 */
export async function enqueue<P, R>(trx: Executor, kind: JobKind<P, R>, payload: P, options: EnqueueOptions): Promise<string> {
  const id = options.id ?? randomUUID();
  await insertJob(trx, { id, kind: kind.kind, tenancyId: options.tenancyId, payload, ...(options.runAt ? { runAt: options.runAt } : {}) });
  return id;
}

/**
 * Queues many jobs of one kind in one statement, in the caller's transaction (same guarantee as
 * enqueue). Returns their ids in order.
 */
export async function enqueueMany<P, R>(trx: Executor, kind: JobKind<P, R>, jobs: { payload: P; options: EnqueueOptions }[]): Promise<string[]> {
  const rows = jobs.map(({ payload, options }) => ({
    id: options.id ?? randomUUID(),
    kind: kind.kind,
    tenancyId: options.tenancyId,
    payload,
    ...(options.runAt ? { runAt: options.runAt } : {}),
  }));
  await insertJobs(trx, rows);
  return rows.map((row) => row.id);
}
