import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { DB } from '../db/schema.js';

/**
 * What a kind of job is: its name in the outbox, how often and how patiently it is tried, how its
 * payload is read back, what one attempt does, and (optionally) what the kind records about each
 * outcome in its own tables, in the transaction that settles the job.
 */

/** A job as one worker holds it for one attempt. */
export interface ClaimedJob<P> {
  id: string;
  kind: string;
  tenancyId: string | null;
  payload: P;
  /** Attempts so far, this one included (1 on the first attempt). */
  attempts: number;
  createdAt: Date;
}

/** How an attempt ended, as the worker settles it: `retry` and `dead` carry the failure's stored text. */
export type JobSettlement<R> = { status: 'done'; result: R } | { status: 'retry'; error: string; retryAt: Date } | { status: 'dead'; error: string };

/** What a handler gets besides its job. */
export interface JobContext {
  deps: Deps;
  /**
   * A value shared by the jobs of one round (one claim of a batch), e.g. one DNS resolution per
   * project and round; computed once per key and round.
   */
  perRound<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** A resource that lives as long as the worker (a connection pool), disposed when it stops. */
  resource<T>(key: string, create: () => T, dispose: (value: T) => void): T;
}

export interface JobKindDefinition<P, R> {
  /** The name stored in jobs.kind: lower-case words with dashes or dots (`email`, `webhook.delivery`). */
  kind: string;
  /** In the operator's log lines (`email delivery failed, will retry`); defaults to `<kind> job`. */
  title?: string;
  /** Attempts before a job that keeps failing temporarily is dead. */
  maxAttempts: number;
  /**
   * The worker lane that runs this kind (default `default`). Each lane claims and runs its own
   * rounds, so a backlog in one (ten thousand emails) never delays a job of another (a webhook).
   */
  lane?: string;
  /** Jobs of this lane claimed per round (the largest of its kinds' wins; default DEFAULT_JOB_BATCH_SIZE). */
  batchSize?: number;
  /** Wait before the next attempt, after `failedAttempts` failed ones (see backoff.ts). */
  backoff: (failedAttempts: number) => number;
  /** Reads a stored payload back (JSON from the database); throws when it is not one of this kind's. */
  parse: (payload: unknown) => P;
  /**
   * One attempt. Returning settles the job as done with the returned result; throwing a
   * JobFailure (or anything else) fails the attempt: retried after `backoff`, or dead when the
   * failure is permanent or the attempts are spent. Runs with no transaction and no lock held;
   * a handler whose worker dies mid-attempt is run again when the lease runs out, so it must be
   * safe to repeat (at-least-once).
   */
  handle: (job: ClaimedJob<P>, context: JobContext) => Promise<R>;
  /**
   * Records the outcome in the kind's own tables, in the transaction that settles the job, and
   * only if this worker still held it (a worker whose lease ran out settles nothing).
   */
  settle?: (trx: Transaction<DB>, job: ClaimedJob<P>, settlement: JobSettlement<R>, context: { deps: Deps }) => Promise<void>;
}

export interface JobKind<P, R = unknown> extends Readonly<JobKindDefinition<P, R>> {
  readonly title: string;
}

// The kind is stored and compared as-is; a narrow alphabet keeps it safe in logs and metrics labels.
const KIND_NAME = /^[a-z][a-z0-9]*(?:[.-][a-z0-9]+)*$/;

/**
 * Declares a kind of job. The returned object is what `enqueue` takes (its payload type checks
 * the payload) and what the worker runs (start.ts lists the kinds in server/job-kinds.ts).
 *
 * @example
 * export const webhookJobKind = defineJobKind({
 *   kind: 'webhook',
 *   maxAttempts: 8,
 *   backoff: exponentialBackoff({ baseMs: 10_000 }),
 *   parse: (payload) => webhookPayloadSchema.parse(payload),
 *   handle: async (job, { deps }) => deliverWebhook(deps, job.payload),
 * });
 */
export function defineJobKind<P, R = void>(definition: JobKindDefinition<P, R>): JobKind<P, R> {
  if (!KIND_NAME.test(definition.kind)) throw new Error(`job kind "${definition.kind}" is not a lower-case name`);
  if (!Number.isInteger(definition.maxAttempts) || definition.maxAttempts < 1)
    throw new Error(`job kind "${definition.kind}": maxAttempts must be a positive integer`);
  return Object.freeze({ ...definition, title: definition.title ?? `${definition.kind} job` });
}

/** Any kind, for lists of kinds (the worker's registry). */
export type AnyJobKind = JobKind<any, any>;

/**
 * A failed attempt, as the handler describes it: `message` is stored on the job (and by the
 * kind's settle, where its owners may read it, so it must not echo a peer's bytes); `detail` goes
 * to the operator's log only. `permanent` failures are not retried.
 */
export class JobFailure extends Error {
  readonly permanent: boolean;
  readonly detail: string;

  constructor(message: string, options: { permanent?: boolean; detail?: string } = {}) {
    super(message);
    this.name = 'JobFailure';
    this.permanent = options.permanent ?? false;
    this.detail = options.detail ?? message;
  }
}

/** A registry of the kinds one worker runs: one definition per name. */
export class JobRegistry {
  private readonly byName = new Map<string, AnyJobKind>();

  constructor(kinds: readonly AnyJobKind[]) {
    for (const kind of kinds) {
      if (this.byName.has(kind.kind)) throw new Error(`job kind "${kind.kind}" is defined twice`);
      this.byName.set(kind.kind, kind);
    }
  }

  get(name: string): AnyJobKind | undefined {
    return this.byName.get(name);
  }

  /** The names this worker claims: a job of a kind it does not know (a newer instance's) is left to others. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The lanes of these kinds: each lane's kind names and its batch size (undefined: the worker's default). */
  lanes(): { lane: string; kinds: string[]; batchSize: number | undefined }[] {
    const lanes = new Map<string, { lane: string; kinds: string[]; batchSize: number | undefined }>();
    for (const kind of this.byName.values()) {
      const name = kind.lane ?? 'default';
      const lane = lanes.get(name) ?? { lane: name, kinds: [], batchSize: undefined };
      lane.kinds.push(kind.kind);
      if (kind.batchSize !== undefined) lane.batchSize = Math.max(lane.batchSize ?? 0, kind.batchSize);
      lanes.set(name, lane);
    }
    return [...lanes.values()];
  }
}
