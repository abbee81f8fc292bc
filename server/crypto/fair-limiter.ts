/**
 * A counting semaphore shared fairly between keys (projects). At most `limit` jobs run at once;
 * the rest wait in one FIFO queue per key, and a freed slot goes to the keys in turn (round
 * robin), not to whoever queued first. So a key that queues a thousand jobs delays another key's
 * next job by at most one job per other waiting key, instead of by all thousand.
 *
 * Each key admits at most `maxQueuedPerKey` callers at once (`admit`, before the caller does any
 * other work such as database reads), and its queue holds at most as many jobs (`run`): past
 * either, the call fails at once with QueueFullError, which carries an estimate of when there will
 * be room, so the excess of a flood costs nothing but the refusal. Before refusing, a full key
 * lets go of the callers whose client has gone (their `gone` says so): a burst of clients that
 * time out and retry must not find its own abandoned calls holding every place.
 *
 * @example
 * const limiter = new FairJobLimiter(2, 64);
 * const leave = limiter.admit(projectId);
 * try { await limiter.run(projectId, () => hash(password)); } finally { leave(); }
 */
export class FairJobLimiter {
  private running = 0;
  /** Keys with waiting jobs, in turn order: the next slot goes to the first; served keys go last. */
  private readonly queues = new Map<string, Waiter[]>();
  private waitingCount = 0;
  /** Callers admitted per key and not yet let out. */
  private readonly admitted = new Map<string, Set<Admission>>();
  /** Moving average of a job's duration, for Retry-After. */
  private averageJobMillis = 50;

  constructor(
    readonly limit: number,
    readonly maxQueuedPerKey: number,
  ) {}

  /**
   * Lets one more caller of `key` in, or throws QueueFullError when `maxQueuedPerKey` are in
   * already. Returns the function that lets it out again (call it exactly when the caller is done;
   * later calls do nothing).
   */
  admit(key: string, gone?: () => boolean): () => void {
    let admissions = this.admitted.get(key);
    const max = Math.max(1, this.maxQueuedPerKey);
    if (admissions && admissions.size >= max) {
      // Callers whose client has gone will hash nothing (run refuses them): they leave now.
      for (const admission of admissions) if (admission.gone?.()) admissions.delete(admission);
      if (admissions.size >= max) throw new QueueFullError(this.retryAfterSeconds(Math.max(admissions.size, this.queuedFor(key))));
    }
    if (!admissions) {
      admissions = new Set();
      this.admitted.set(key, admissions);
    }
    const admission: Admission = { gone };
    admissions.add(admission);
    return () => {
      const current = this.admitted.get(key);
      if (!current?.delete(admission)) return;
      if (current.size === 0) this.admitted.delete(key);
    };
  }

  /** Callers of `key` admitted and not yet let out. */
  admittedFor(key: string): number {
    return this.admitted.get(key)?.size ?? 0;
  }

  /**
   * Runs `job` in `key`'s turn. `gone` says whether the caller has stopped waiting (its client
   * disconnected): such a job is dropped when its turn comes, its slot handed straight on, and
   * the call fails with CallerGoneError, so a client that gives up costs no hash.
   */
  async run<T>(key: string, job: () => Promise<T>, gone?: () => boolean): Promise<T> {
    if (gone?.()) throw new CallerGoneError();
    if (this.running < this.limit) {
      this.running++;
    } else {
      let queue = this.queues.get(key);
      if (queue && queue.length >= this.maxQueuedPerKey) queue = this.dropGone(key, queue);
      if (queue && queue.length >= this.maxQueuedPerKey) throw new QueueFullError(this.retryAfterSeconds(queue.length));
      if (this.maxQueuedPerKey <= 0) throw new QueueFullError(this.retryAfterSeconds(0));
      if (!queue) {
        queue = [];
        this.queues.set(key, queue);
      }
      const waiting = queue;
      this.waitingCount++;
      // The slot is handed over by release(): `running` already counts this job when it resumes.
      const granted = await new Promise<boolean>((grant) => waiting.push({ grant, gone }));
      // Dropped from a full queue to make room (dropGone): it never held a slot.
      if (!granted) throw new CallerGoneError();
      if (gone?.()) {
        this.release();
        throw new CallerGoneError();
      }
    }
    const started = performance.now();
    try {
      return await job();
    } finally {
      this.averageJobMillis = this.averageJobMillis * 0.9 + (performance.now() - started) * 0.1;
      this.release();
    }
  }

  private release(): void {
    const first = this.queues.entries().next();
    if (first.done) {
      this.running--;
      return;
    }
    const [key, queue] = first.value;
    const next = queue.shift()!;
    // The served key goes to the back of the turn order (or leaves it when it has nothing waiting).
    this.queues.delete(key);
    if (queue.length > 0) this.queues.set(key, queue);
    this.waitingCount--;
    next.grant(true);
  }

  /** Takes the jobs whose caller has gone out of a full queue (they fail unrun); returns what is left, if anything. */
  private dropGone(key: string, queue: Waiter[]): Waiter[] | undefined {
    const kept: Waiter[] = [];
    for (const waiter of queue) {
      if (waiter.gone?.()) waiter.grant(false);
      else kept.push(waiter);
    }
    if (kept.length === queue.length) return queue;
    this.waitingCount -= queue.length - kept.length;
    // The key keeps its place in the turn order.
    if (kept.length > 0) this.queues.set(key, kept);
    else this.queues.delete(key);
    return kept.length > 0 ? kept : undefined;
  }

  /**
   * Seconds until a key with `queued` waiting jobs is likely to have room again: its queue drains
   * one job per turn, a turn being one job of every waiting key spread over the slots.
   */
  private retryAfterSeconds(queued: number): number {
    const turnMillis = (this.averageJobMillis * Math.max(1, this.queues.size)) / this.limit;
    return Math.max(1, Math.ceil((queued * turnMillis) / 1000));
  }

  /** Jobs waiting, over every key. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Jobs waiting for one key. */
  queuedFor(key: string): number {
    return this.queues.get(key)?.length ?? 0;
  }

  get active(): number {
    return this.running;
  }
}

interface Admission {
  gone?: () => boolean;
}

interface Waiter {
  /** true: the job's turn has come (it holds a slot); false: dropped from the queue unrun. */
  grant: (granted: boolean) => void;
  gone?: () => boolean;
}

/** The key's queue is full: try again in `retryAfterSeconds`. */
export class QueueFullError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`The queue is full; retry in ${retryAfterSeconds} s.`);
    this.name = 'QueueFullError';
  }
}

/** The caller left (its client disconnected) while its job waited: the job was not run. */
export class CallerGoneError extends Error {
  constructor() {
    super('The caller left before its turn; the job was not run.');
    this.name = 'CallerGoneError';
  }
}
