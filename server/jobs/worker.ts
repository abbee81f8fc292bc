import type { Deps } from '../deps.js';
import { type AnyJobKind, type ClaimedJob, type JobContext, JobFailure, JobRegistry, type JobSettlement } from './kinds.js';
import * as q from './queries.js';

/**
 * The worker of one instance: claims due jobs of the kinds it knows (queries.ts, claimDueJobs:
 * FOR UPDATE SKIP LOCKED and a lease), runs each kind's handler with no lock held, and settles
 * each attempt: done, retried after the kind's backoff, or dead once the failure is permanent or
 * the kind's attempts are spent. Every instance runs one; they share the table safely.
 *
 * Kinds are grouped in lanes (kinds.ts, `lane`): each lane polls, claims and runs its own rounds,
 * with its own batch size, so a lane full of work (send-email's render batches, ten thousand
 * deliveries) never holds up a job of another lane (a webhook) waiting behind it.
 */

export interface JobWorkerOptions {
  /** How long to sleep when nothing is due. */
  pollIntervalMs: number;
  /** Jobs claimed (and run concurrently) per round, in every lane (default: each lane's own, see kinds.ts). */
  batchSize?: number;
  /** How long a claimed job is reserved for the worker that claimed it. */
  leaseMs?: number;
}

export const DEFAULT_JOB_BATCH_SIZE = 8;
export const DEFAULT_JOB_LEASE_MS = 5 * 60_000;

/** Stored on a job whose last lease ran out with its attempts spent: its worker stopped mid-attempt every time. */
export const LEASE_EXPIRED_ERROR = 'The worker stopped during the last attempt (its lease ran out).';
/** Stored on a job whose payload its kind cannot read: retrying would not help. */
export const BAD_PAYLOAD_ERROR = 'The job payload is not one its kind can read.';

interface Lane {
  name: string;
  kinds: string[];
  batchSize: number;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
}

export class JobWorker {
  private readonly registry: JobRegistry;
  private readonly options: { pollIntervalMs: number; batchSize: number | undefined; leaseMs: number };
  private readonly resources = new Map<string, { value: unknown; dispose: () => void }>();
  private readonly lanes: Lane[];
  private stopped = false;

  constructor(
    private readonly deps: Deps,
    kinds: JobRegistry | readonly AnyJobKind[],
    options: JobWorkerOptions,
  ) {
    this.registry = kinds instanceof JobRegistry ? kinds : new JobRegistry(kinds);
    this.options = { pollIntervalMs: options.pollIntervalMs, batchSize: options.batchSize, leaseMs: options.leaseMs ?? DEFAULT_JOB_LEASE_MS };
    this.lanes = this.registry.lanes().map((lane) => ({
      name: lane.lane,
      kinds: lane.kinds,
      batchSize: this.options.batchSize ?? lane.batchSize ?? DEFAULT_JOB_BATCH_SIZE,
      timer: null,
      running: null,
    }));
  }

  start(): void {
    for (const lane of this.lanes) this.schedule(lane, 0);
  }

  /** Stops polling, waits for the rounds in flight, and disposes the handlers' resources (connection pools). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const lane of this.lanes) {
      if (lane.timer) clearTimeout(lane.timer);
      lane.timer = null;
    }
    await Promise.all(this.lanes.map((lane) => lane.running));
    for (const { dispose } of this.resources.values()) dispose();
    this.resources.clear();
  }

  private schedule(lane: Lane, delayMs: number): void {
    if (this.stopped) return;
    lane.timer = setTimeout(() => {
      lane.timer = null;
      lane.running = this.runLane(lane)
        .then((claimed) => this.schedule(lane, claimed >= lane.batchSize ? 0 : this.options.pollIntervalMs))
        .catch((error: unknown) => {
          if (!this.stopped) this.deps.log.error('job worker round failed', { lane: lane.name, error: error instanceof Error ? error.message : String(error) });
          this.schedule(lane, this.options.pollIntervalMs);
        });
    }, delayMs);
    // The worker alone never keeps the process alive.
    lane.timer.unref();
  }

  /** One round of every lane: claims due jobs and runs them. Returns how many were claimed in all. */
  async runOnce(): Promise<number> {
    const claimed = await Promise.all(this.lanes.map((lane) => this.runLane(lane)));
    return claimed.reduce((sum, n) => sum + n, 0);
  }

  /** One round of one lane. */
  private async runLane(lane: Lane): Promise<number> {
    const claimed = await q.claimDueJobs(this.deps.db, lane.kinds, lane.batchSize, this.options.leaseMs);
    if (claimed.length === 0) return 0;
    const round = new Map<string, Promise<unknown>>();
    const context: JobContext = {
      deps: this.deps,
      perRound: <T>(key: string, compute: () => Promise<T>) => {
        let value = round.get(key) as Promise<T> | undefined;
        if (!value) {
          value = compute();
          round.set(key, value);
        }
        return value;
      },
      resource: <T>(key: string, create: () => T, dispose: (value: T) => void): T => {
        const held = this.resources.get(key);
        if (held) return held.value as T;
        const value = create();
        this.resources.set(key, { value, dispose: () => dispose(value) });
        return value;
      },
    };
    const results = await Promise.allSettled(claimed.map((row) => this.run(row, context)));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    return claimed.length;
  }

  private async run(row: q.JobRow, context: JobContext): Promise<void> {
    // Claimed by name, so the kind is known.
    const kind = this.registry.get(row.kind)!;
    const base = { id: row.id, kind: row.kind, tenancyId: row.tenancy_id, attempts: row.attempts, createdAt: row.created_at };
    let job: ClaimedJob<unknown>;
    try {
      job = { ...base, payload: kind.parse(row.payload) };
    } catch (error) {
      this.deps.log.warn(`${kind.title} failed for good`, {
        job_id: row.id,
        attempts: row.attempts,
        error: `unreadable payload: ${error instanceof Error ? error.message : String(error)}`,
      });
      // Its kind's settle is not called: it could not read the payload either.
      await this.settle(null, { ...base, payload: row.payload }, { status: 'dead', error: BAD_PAYLOAD_ERROR });
      return;
    }
    if (row.attempts > kind.maxAttempts) {
      // Every attempt so far was cut off (or failed) and this claim only exists because the last
      // lease ran out: a job that kills its worker is not run forever.
      this.deps.log.warn(`${kind.title} failed for good`, { job_id: row.id, attempts: row.attempts - 1, error: LEASE_EXPIRED_ERROR });
      await this.settle(kind, job, { status: 'dead', error: LEASE_EXPIRED_ERROR });
      return;
    }
    let result: unknown;
    try {
      result = await kind.handle(job, context);
    } catch (error) {
      const failure = error instanceof JobFailure ? error : new JobFailure(error instanceof Error ? error.message : String(error));
      const logged = { job_id: row.id, attempts: row.attempts, error: failure.detail };
      if (failure.permanent || row.attempts >= kind.maxAttempts) {
        this.deps.log.warn(`${kind.title} failed for good`, logged);
        await this.settle(kind, job, { status: 'dead', error: failure.message });
      } else {
        this.deps.log.info(`${kind.title} failed, will retry`, logged);
        await this.settle(kind, job, { status: 'retry', error: failure.message, retryAt: new Date(Date.now() + kind.backoff(row.attempts)) });
      }
      return;
    }
    await this.settle(kind, job, { status: 'done', result });
  }

  /** Settles the job and lets its kind record the outcome, in one transaction, if this worker still holds it. */
  private async settle(kind: AnyJobKind | null, job: ClaimedJob<unknown>, settlement: JobSettlement<unknown>): Promise<void> {
    const outcome: q.JobOutcome = settlement.status === 'done' ? { status: 'done' } : settlement;
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await q.settleJob(trx, job, outcome))) return;
      await kind?.settle?.(trx, job, settlement, { deps: this.deps });
    });
  }
}

/** Starts the worker of this instance (server/start.ts stops it on close). */
export function startJobWorker(deps: Deps, kinds: JobRegistry | readonly AnyJobKind[], options: JobWorkerOptions): JobWorker {
  const worker = new JobWorker(deps, kinds, options);
  worker.start();
  return worker;
}
