import { type Selectable, sql } from 'kysely';
import type { Database } from '../db/kysely.js';
import type { Executor } from '../db/executor.js';
import type { JobsTable } from '../db/schema.js';

/** The only SQL of the outbox (migration 0007). */

export type JobRow = Selectable<JobsTable>;

export interface NewJob {
  id: string;
  kind: string;
  tenancyId: string | null;
  payload: unknown;
  /** When the first attempt is due (default: now). */
  runAt?: Date;
}

export async function insertJob(db: Executor, job: NewJob): Promise<void> {
  await db
    .insertInto('jobs')
    .values({
      id: job.id,
      kind: job.kind,
      tenancy_id: job.tenancyId,
      payload: JSON.stringify(job.payload),
      status: 'pending',
      attempts: 0,
      next_attempt_at: job.runAt ?? sql<Date>`now()`,
      created_at: sql<Date>`now()`,
    })
    .execute();
}

/** Many jobs in one statement (a batch's deliveries, send-email's batches). */
export async function insertJobs(db: Executor, jobs: NewJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await db
    .insertInto('jobs')
    .values(
      jobs.map((job) => ({
        id: job.id,
        kind: job.kind,
        tenancy_id: job.tenancyId,
        payload: JSON.stringify(job.payload),
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: job.runAt ?? sql<Date>`now()`,
        created_at: sql<Date>`now()`,
      })),
    )
    .execute();
}

/**
 * Claims up to `limit` due pending jobs of the given kinds for this worker: locks them with FOR
 * UPDATE SKIP LOCKED (another instance's worker skips them instead of waiting or running them
 * twice), counts the attempt and leases them by moving next_attempt_at `leaseMillis` ahead, then
 * commits. The attempt runs after the commit, with no lock held; if this worker dies mid-attempt,
 * the job is due again when the lease runs out. On PGlite (one connection, one process) the same
 * statement runs and simply never meets a competitor.
 */
/** The ids of pending jobs of these kinds that are due now. */
function dueJobIds(db: Executor, kinds: readonly string[]) {
  return db
    .selectFrom('jobs')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .where('kind', 'in', kinds);
}

export async function claimDueJobs(db: Database, kinds: readonly string[], limit: number, leaseMillis: number): Promise<JobRow[]> {
  if (kinds.length === 0) return [];
  // The usual answer is "nothing due": one indexed read, no transaction, no lock.
  const anyDue = await dueJobIds(db, kinds).limit(1).executeTakeFirst();
  if (!anyDue) return [];
  return db.transaction().execute(async (trx) => {
    const due = await dueJobIds(trx, kinds).orderBy('next_attempt_at').limit(limit).forUpdate().skipLocked().execute();
    if (due.length === 0) return [];
    return trx
      .updateTable('jobs')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        next_attempt_at: sql<Date>`now() + ${`${leaseMillis} milliseconds`}::interval`,
        leased_at: sql<Date>`now()`,
      }))
      .where(
        'id',
        'in',
        due.map((row) => row.id),
      )
      .returningAll()
      .execute();
  });
}

/** How the worker settles one claimed attempt. */
export type JobOutcome = { status: 'done' } | { status: 'retry'; error: string; retryAt: Date } | { status: 'dead'; error: string };

/**
 * Settles one claimed attempt, only while the job is still the one this worker claimed (pending,
 * same attempt count: the attempt count is the lease's fencing token). Returns false when another
 * worker took the job over after this one's lease ran out: then nothing is written.
 */
export async function settleJob(db: Executor, claimed: { id: string; attempts: number }, outcome: JobOutcome): Promise<boolean> {
  const patch =
    outcome.status === 'done'
      ? { status: 'done' as const, finished_at: sql<Date>`now()`, leased_at: null }
      : outcome.status === 'retry'
        ? { next_attempt_at: outcome.retryAt, last_error: outcome.error, leased_at: null }
        : { status: 'dead' as const, last_error: outcome.error, finished_at: sql<Date>`now()`, leased_at: null };
  const settled = await db
    .updateTable('jobs')
    .set(patch)
    .where('id', '=', claimed.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', claimed.attempts)
    .returning('id')
    .executeTakeFirst();
  return settled !== undefined;
}
