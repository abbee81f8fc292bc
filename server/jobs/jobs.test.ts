import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../db/kysely.js';
import { type Harness, startHarness } from '../test/harness.js';
import { exponentialBackoff, retryDelayMs } from './backoff.js';
import { type AnyJobKind, type ClaimedJob, defineJobKind, JobFailure, JobRegistry, type JobSettlement } from './kinds.js';
import { enqueue } from './outbox.js';
import { claimDueJobs, settleJob } from './queries.js';
import { BAD_PAYLOAD_ERROR, JobWorker, LEASE_EXPIRED_ERROR } from './worker.js';

/**
 * The generic outbox with test kinds of job (each test its own kind, so the server's own worker,
 * which runs only the email kind, and the other tests never touch its jobs): enqueue in the
 * caller's transaction, claim, retries with backoff, dead after the attempts, lease expiry after a
 * crash, and exactly-once completion with two workers. On PostgreSQL (LATCH_TEST_DB=postgres) the
 * two workers use two connection pools, as two instances would.
 */

let h: Harness;
let second: { db: Database; close: () => Promise<void> } | null = null;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await second?.close();
  await h?.close();
});

const db = () => h.latch.deps.db;
let kinds = 0;
const kindName = (what: string) => `test.${what}-${++kinds}`;
const FIXED_BACKOFF_MS = 60_000;

interface Payload {
  n: number;
}

/** A test kind whose handler is `handle`, recording every settlement. */
function testKind(what: string, handle: (job: ClaimedJob<Payload>) => Promise<string>, options: { maxAttempts?: number } = {}) {
  const settled: { id: string; attempts: number; settlement: JobSettlement<string> }[] = [];
  const kind = defineJobKind<Payload, string>({
    kind: kindName(what),
    maxAttempts: options.maxAttempts ?? 3,
    backoff: () => FIXED_BACKOFF_MS,
    parse: (payload) => {
      const n = (payload as { n?: unknown } | null)?.n;
      if (typeof n !== 'number') throw new Error('no n');
      return { n };
    },
    handle,
    settle: async (_trx, job, settlement) => {
      settled.push({ id: job.id, attempts: job.attempts, settlement });
    },
  });
  return { kind, settled };
}

const worker = (kind: AnyJobKind, database = db()) => new JobWorker({ ...h.latch.deps, db: database }, [kind], { pollIntervalMs: 5, batchSize: 50 });
const jobRow = (id: string) => db().selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
/** Time travel: the job's next attempt (or the end of its lease) is now. */
const makeDue = (id: string) =>
  db()
    .updateTable('jobs')
    .set({ next_attempt_at: new Date(Date.now() - 1) })
    .where('id', '=', id)
    .execute();

describe('enqueue', () => {
  it('writes the job in the caller transaction: committed with it, or gone with its rollback', async () => {
    const { kind } = testKind('tx', async () => 'ok');
    const kept = await db()
      .transaction()
      .execute((trx) => enqueue(trx, kind, { n: 1 }, { tenancyId: null }));
    let dropped = '';
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          dropped = await enqueue(trx, kind, { n: 2 }, { tenancyId: null });
          throw new Error('the change failed');
        }),
    ).rejects.toThrow('the change failed');
    expect(await jobRow(kept)).toMatchObject({
      kind: kind.kind,
      status: 'pending',
      attempts: 0,
      payload: { n: 1 },
      leased_at: null,
      last_error: null,
      finished_at: null,
    });
    expect(await db().selectFrom('jobs').select('id').where('id', '=', dropped).execute()).toEqual([]);
  });

  it('refuses a kind name outside the alphabet and a kind defined twice', () => {
    expect(() => defineJobKind({ kind: 'Bad Kind', maxAttempts: 1, backoff: () => 0, parse: (p) => p, handle: async () => undefined })).toThrow(/lower-case/);
    expect(() => defineJobKind({ kind: 'ok', maxAttempts: 0, backoff: () => 0, parse: (p) => p, handle: async () => undefined })).toThrow(/maxAttempts/);
    const { kind } = testKind('twice', async () => 'ok');
    expect(() => new JobRegistry([kind, kind])).toThrow(/defined twice/);
  });
});

describe('the worker', () => {
  it('claims a due job, runs its handler with the payload, and settles it done (with the kind’s record, once)', async () => {
    const seen: ClaimedJob<Payload>[] = [];
    const { kind, settled } = testKind('claim', async (job) => {
      seen.push(job);
      // While it runs, the job is leased: pending, due only when the lease runs out.
      const leased = await jobRow(job.id);
      expect(leased.leased_at).not.toBeNull();
      expect(leased.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 60_000);
      return `done ${job.payload.n}`;
    });
    const id = await enqueue(db(), kind, { n: 7 }, { tenancyId: null });
    const later = await enqueue(db(), kind, { n: 8 }, { tenancyId: null, runAt: new Date(Date.now() + 3_600_000) });
    const w = worker(kind);
    expect(await w.runOnce()).toBe(1);
    expect(seen).toEqual([expect.objectContaining({ id, kind: kind.kind, tenancyId: null, payload: { n: 7 }, attempts: 1 })]);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1, leased_at: null, last_error: null, finished_at: expect.any(Date) });
    expect(settled).toEqual([{ id, attempts: 1, settlement: { status: 'done', result: 'done 7' } }]);
    // Nothing else is due (the other job runs in an hour), and a done job is not run again.
    expect(await w.runOnce()).toBe(0);
    expect((await jobRow(later)).status).toBe('pending');
    await w.stop();
  });

  it('retries a failing job after the kind’s backoff, keeping the last error, then completes it', async () => {
    let calls = 0;
    const { kind, settled } = testKind('retry', async () => {
      calls++;
      if (calls < 3) throw new JobFailure(`try ${calls} failed`, { detail: 'for the log only' });
      return 'third time';
    });
    const id = await enqueue(db(), kind, { n: 1 }, { tenancyId: null });
    const w = worker(kind);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const before = Date.now();
      expect(await w.runOnce()).toBe(1);
      const row = await jobRow(id);
      expect(row).toMatchObject({ status: 'pending', attempts: attempt, last_error: `try ${attempt} failed`, leased_at: null, finished_at: null });
      expect(row.next_attempt_at.getTime()).toBeGreaterThanOrEqual(before + FIXED_BACKOFF_MS - 50);
      expect(row.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now() + FIXED_BACKOFF_MS + 50);
      // Not due before its backoff has passed.
      expect(await w.runOnce()).toBe(0);
      await makeDue(id);
    }
    expect(await w.runOnce()).toBe(1);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 3 });
    expect(settled.map((s) => [s.attempts, s.settlement.status])).toEqual([
      [1, 'retry'],
      [2, 'retry'],
      [3, 'done'],
    ]);
    await w.stop();
  });

  it('gives up after the kind’s attempts (dead), and at once on a permanent failure', async () => {
    const { kind, settled } = testKind(
      'dead',
      async (job) => {
        if (job.payload.n === 0) throw new JobFailure('refused for good', { permanent: true });
        throw new Error('still down');
      },
      { maxAttempts: 3 },
    );
    const id = await enqueue(db(), kind, { n: 1 }, { tenancyId: null });
    const permanent = await enqueue(db(), kind, { n: 0 }, { tenancyId: null });
    const w = worker(kind);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await w.runOnce();
      await makeDue(id);
    }
    expect(await jobRow(id)).toMatchObject({ status: 'dead', attempts: 3, last_error: 'still down', finished_at: expect.any(Date) });
    expect(await jobRow(permanent)).toMatchObject({ status: 'dead', attempts: 1, last_error: 'refused for good' });
    expect(settled.filter((s) => s.id === id).map((s) => s.settlement.status)).toEqual(['retry', 'retry', 'dead']);
    // Dead is final.
    await makeDue(id);
    expect(await w.runOnce()).toBe(0);
    await w.stop();
  });

  it('runs a job again once the lease of a worker that died mid-attempt runs out; the dead worker cannot settle it late', async () => {
    let runs = 0;
    const { kind, settled } = testKind('lease', async () => `run ${++runs}`);
    const id = await enqueue(db(), kind, { n: 1 }, { tenancyId: null });
    // A worker claims it and is killed before it settles: only its claim was committed.
    const [crashed] = await claimDueJobs(db(), [kind.kind], 10, 60_000);
    expect(crashed).toMatchObject({ id, attempts: 1 });
    const w = worker(kind);
    // Leased: nobody else runs it meanwhile.
    expect(await w.runOnce()).toBe(0);
    // The lease runs out.
    await makeDue(id);
    expect(await w.runOnce()).toBe(1);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2 });
    expect(settled).toEqual([{ id, attempts: 2, settlement: { status: 'done', result: 'run 1' } }]);
    // The first worker comes back and tries to settle its attempt: fenced off by the attempt count.
    expect(await settleJob(db(), { id, attempts: 1 }, { status: 'dead', error: 'late' })).toBe(false);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2, last_error: null });
    await w.stop();
  });

  it('declares a job dead when its last lease ran out with its attempts spent (a job that kills its worker is not run forever)', async () => {
    let runs = 0;
    const { kind, settled } = testKind('poison', async () => `run ${++runs}`, { maxAttempts: 2 });
    const id = await enqueue(db(), kind, { n: 1 }, { tenancyId: null });
    for (let i = 0; i < 2; i++) {
      expect(await claimDueJobs(db(), [kind.kind], 10, 60_000)).toHaveLength(1);
      await makeDue(id);
    }
    const w = worker(kind);
    expect(await w.runOnce()).toBe(1);
    expect(runs).toBe(0);
    expect(await jobRow(id)).toMatchObject({ status: 'dead', attempts: 3, last_error: LEASE_EXPIRED_ERROR });
    expect(settled.map((s) => s.settlement)).toEqual([{ status: 'dead', error: LEASE_EXPIRED_ERROR }]);
    await w.stop();
  });

  it('leaves jobs of kinds it does not run to others, and declares a payload its kind cannot read dead', async () => {
    const { kind: mine } = testKind('mine', async () => 'ok');
    const { kind: theirs } = testKind('theirs', async () => 'ok');
    const foreign = await enqueue(db(), theirs, { n: 1 }, { tenancyId: null });
    const unreadable = await enqueue(db(), mine, { n: 'not a number' } as unknown as Payload, { tenancyId: null });
    const w = worker(mine);
    expect(await w.runOnce()).toBe(1);
    expect(await jobRow(unreadable)).toMatchObject({ status: 'dead', attempts: 1, last_error: BAD_PAYLOAD_ERROR });
    expect(await jobRow(foreign)).toMatchObject({ status: 'pending', attempts: 0 });
    await w.stop();
  });

  it('completes every job exactly once with two workers polling the same outbox', async () => {
    // On PostgreSQL the second worker has its own pool, as another instance would.
    if (h.database.kind === 'postgres') second = await openDatabase({ ...h.database, poolSize: 4 });
    const runs = new Map<string, number>();
    const { kind, settled } = testKind('race', async (job) => {
      runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 2));
      return 'ok';
    });
    const workers = [
      new JobWorker(h.latch.deps, [kind], { pollIntervalMs: 2, batchSize: 4 }),
      new JobWorker({ ...h.latch.deps, db: second?.db ?? db() }, [kind], { pollIntervalMs: 2, batchSize: 4 }),
    ];
    for (const w of workers) w.start();
    const ids: string[] = [];
    try {
      for (let n = 0; n < 60; n++) ids.push(await enqueue(db(), kind, { n }, { tenancyId: null }));
      const started = Date.now();
      for (;;) {
        const open = await db().selectFrom('jobs').select('id').where('kind', '=', kind.kind).where('status', '!=', 'done').execute();
        if (open.length === 0) break;
        if (Date.now() - started > 20_000) throw new Error(`${open.length} jobs still open`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    expect([...runs.keys()].sort()).toEqual([...ids].sort());
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(settled).toHaveLength(ids.length);
    const rows = await db().selectFrom('jobs').select(['attempts', 'status']).where('kind', '=', kind.kind).execute();
    expect(rows.every((row) => row.attempts === 1 && row.status === 'done')).toBe(true);
  });

  it('stops: the round in flight finishes and the handlers’ resources are disposed', async () => {
    let disposed = 0;
    let release!: () => void;
    const running = new Promise<void>((resolve) => (release = resolve));
    const kind = defineJobKind<unknown, void>({
      kind: kindName('stop'),
      maxAttempts: 1,
      backoff: () => 0,
      parse: (payload) => payload,
      handle: async (_job, { resource }) => {
        resource(
          'test-pool',
          () => ({}),
          () => disposed++,
        );
        await running;
      },
    });
    const id = await enqueue(db(), kind, {}, { tenancyId: null });
    const w = new JobWorker(h.latch.deps, [kind], { pollIntervalMs: 5 });
    w.start();
    while ((await jobRow(id)).attempts === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const stopped = w.stop();
    release();
    await stopped;
    expect(await jobRow(id)).toMatchObject({ status: 'done' });
    expect(disposed).toBe(1);
  });
});

describe('backoff', () => {
  // The doubling and the jitter of retryDelayMs are pinned by the email kind's test (emails.test.ts).
  it('stays within ±25 % of the doubled first delay, and under the cap a kind sets', () => {
    const backoff = exponentialBackoff({ baseMs: 1000 });
    for (let attempt = 1; attempt < 6; attempt++) {
      expect(backoff(attempt)).toBeGreaterThanOrEqual(750 * 2 ** (attempt - 1));
      expect(backoff(attempt)).toBeLessThanOrEqual(1250 * 2 ** (attempt - 1));
    }
    expect(retryDelayMs(5, 10_000, () => 0.5, 60_000)).toBe(60_000);
    expect(exponentialBackoff({ baseMs: 10_000, maxMs: 20_000 })(9)).toBeLessThanOrEqual(25_000);
  });
});

describe('lanes', () => {
  it('a backlog in one lane does not delay a job of another: the webhook-like job runs while every bulk job is still held', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const bulk = defineJobKind<Payload, string>({
      kind: kindName('bulk'),
      lane: `bulk-${kinds}`,
      batchSize: 4,
      maxAttempts: 3,
      backoff: () => FIXED_BACKOFF_MS,
      parse: (payload) => payload as Payload,
      handle: async () => {
        await gate;
        return 'sent';
      },
    });
    const { kind: urgent } = testKind('urgent', async () => 'delivered');
    // The backlog is older than the urgent job, so a single queue would claim it first, batch after batch.
    await db()
      .transaction()
      .execute(async (trx) => {
        for (let n = 0; n < 20; n++) await enqueue(trx, bulk, { n }, { tenancyId: null });
      });
    const urgentId = await db()
      .transaction()
      .execute((trx) => enqueue(trx, urgent, { n: 0 }, { tenancyId: null }));
    const w = new JobWorker(h.latch.deps, [bulk, urgent], { pollIntervalMs: 5 });
    w.start();
    try {
      await expect.poll(async () => (await jobRow(urgentId)).status, { timeout: 60_000, interval: 20 }).toBe('done');
      const bulkDone = await db().selectFrom('jobs').select('id').where('kind', '=', bulk.kind).where('status', '=', 'done').execute();
      expect(bulkDone).toEqual([]);
    } finally {
      release();
      await w.stop();
    }
    // Once released, the backlog drains too.
    await w.runOnce();
  });

  it('groups kinds by lane, with the largest batch size a lane declares', () => {
    // Kinds that do nothing: only their lane and batch size matter here.
    const noop = (name: string, lanes: { lane?: string; batchSize?: number } = {}) =>
      defineJobKind({ kind: kindName(name), ...lanes, maxAttempts: 1, backoff: () => 0, parse: (p) => p, handle: async () => undefined });
    const a = noop('a', { lane: 'x', batchSize: 10 });
    const b = noop('b', { lane: 'x', batchSize: 50 });
    const c = noop('c');
    expect(new JobRegistry([a, b, c]).lanes()).toEqual([
      { lane: 'x', kinds: [a.kind, b.kind], batchSize: 50 },
      { lane: 'default', kinds: [c.kind], batchSize: undefined },
    ]);
  });
});
