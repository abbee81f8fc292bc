import { describe, expect, it } from 'vitest';
import { CallerGoneError, FairJobLimiter, QueueFullError } from './fair-limiter.js';

/** A job that runs until finished by hand, recording when it started. */
function manual(started: string[], name: string) {
  let finish!: (fail?: boolean) => void;
  const job = () =>
    new Promise<string>((resolve, reject) => {
      started.push(name);
      finish = (fail) => (fail ? reject(new Error(name)) : resolve(name));
    });
  return { job, finish: (fail?: boolean) => finish(fail) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FairJobLimiter', () => {
  it('hands free slots to the waiting keys in turn, not in arrival order', async () => {
    const limiter = new FairJobLimiter(1, 100);
    const started: string[] = [];
    const jobs = new Map<string, ReturnType<typeof manual>>();
    const run = (key: string, name: string) => {
      const m = manual(started, name);
      jobs.set(name, m);
      return limiter.run(key, m.job);
    };
    const all = [run('a', 'a0'), run('a', 'a1'), run('a', 'a2'), run('a', 'a3'), run('b', 'b1'), run('c', 'c1'), run('b', 'b2')];
    await tick();
    expect(started).toEqual(['a0']);
    expect(limiter.queued).toBe(6);
    expect(limiter.queuedFor('a')).toBe(3);
    for (const next of ['a0', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3']) {
      jobs.get(next)!.finish();
      await tick();
    }
    // a queued first and most, yet b and c each waited for one job of a only.
    expect(started).toEqual(['a0', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(await Promise.all(all)).toEqual(['a0', 'a1', 'a2', 'a3', 'b1', 'c1', 'b2']);
    expect(limiter.active).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('refuses at once, with a Retry-After estimate, when a key already has its maximum waiting; other keys still queue', async () => {
    const limiter = new FairJobLimiter(2, 3);
    const started: string[] = [];
    const running = [manual(started, 'r1'), manual(started, 'r2')];
    const busy = running.map((m) => limiter.run('a', m.job));
    const waiting = [1, 2, 3].map((i) => limiter.run('a', manual(started, `w${i}`).job));
    await tick();
    let refused: unknown;
    try {
      await limiter.run('a', async () => 'never');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(QueueFullError);
    expect((refused as QueueFullError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const other = limiter.run('b', async () => 'b ran');
    expect(limiter.queuedFor('b')).toBe(1);
    running[0]!.finish();
    running[1]!.finish(true);
    await expect(busy[1]).rejects.toThrow('r2');
    await busy[0];
    expect(await other).toBe('b ran');
    await tick();
    // The two freed slots went to a's first waiter and to b, in turn; b's freed slot back to a.
    expect(started).toEqual(['r1', 'r2', 'w1', 'w2']);
    expect(limiter.active).toBe(2);
    expect(limiter.queuedFor('a')).toBe(1);
    void waiting;
  });

  it('with a queue of 0, runs only what fits in the free slots', async () => {
    const limiter = new FairJobLimiter(1, 0);
    const started: string[] = [];
    const first = manual(started, 'one');
    const running = limiter.run('a', first.job);
    await expect(limiter.run('b', async () => 'x')).rejects.toBeInstanceOf(QueueFullError);
    first.finish();
    expect(await running).toBe('one');
    expect(await limiter.run('b', async () => 'x')).toBe('x');
  });

  it('admits at most maxQueuedPerKey callers per key before they do anything, and lets each out once', () => {
    const limiter = new FairJobLimiter(2, 2);
    const leaveA1 = limiter.admit('a');
    const leaveA2 = limiter.admit('a');
    expect(() => limiter.admit('a')).toThrow(QueueFullError);
    const leaveB = limiter.admit('b');
    expect(limiter.admittedFor('a')).toBe(2);
    leaveA1();
    leaveA1();
    expect(limiter.admittedFor('a')).toBe(1);
    const leaveA3 = limiter.admit('a');
    expect(() => limiter.admit('a')).toThrow(QueueFullError);
    for (const leave of [leaveA2, leaveA3, leaveB]) leave();
    expect(limiter.admittedFor('a')).toBe(0);
    expect(limiter.admittedFor('b')).toBe(0);
  });

  it('drops a waiting job whose caller has gone when its turn comes, and hands the slot straight on', async () => {
    const limiter = new FairJobLimiter(1, 10);
    const started: string[] = [];
    const first = manual(started, 'first');
    const running = limiter.run('a', first.job);
    let leftA = false;
    const abandoned = manual(started, 'abandoned');
    const dropped = limiter.run('a', abandoned.job, () => leftA);
    const waiting = manual(started, 'waiting');
    const kept = limiter.run('b', waiting.job, () => false);
    await tick();
    leftA = true; // its client disconnected while it waited
    first.finish();
    await expect(dropped).rejects.toBeInstanceOf(CallerGoneError);
    await tick();
    expect(started).toEqual(['first', 'waiting']);
    waiting.finish();
    expect(await kept).toBe('waiting');
    expect(await running).toBe('first');
    expect(limiter.active).toBe(0);
    expect(limiter.queued).toBe(0);
    // A caller already gone on arrival takes no slot either.
    await expect(
      limiter.run(
        'a',
        async () => 'never',
        () => true,
      ),
    ).rejects.toBeInstanceOf(CallerGoneError);
    expect(limiter.active).toBe(0);
  });

  it('a full key lets its callers whose client has gone out before refusing a new one: admissions and queued jobs', async () => {
    const limiter = new FairJobLimiter(1, 2);
    // Admissions: two callers hold the key's places; one of them has lost its client.
    let firstGone = false;
    const leaveFirst = limiter.admit('a', () => firstGone);
    const leaveSecond = limiter.admit('a', () => false);
    expect(() => limiter.admit('a', () => false)).toThrow(QueueFullError);
    firstGone = true;
    const leaveThird = limiter.admit('a', () => false);
    expect(limiter.admittedFor('a')).toBe(2);
    leaveFirst(); // the gone caller's own leave, later, changes nothing
    expect(limiter.admittedFor('a')).toBe(2);
    // Queue: one job runs, two wait; the first waiter's client goes, and a new job takes its place.
    const started: string[] = [];
    const running = manual(started, 'running');
    const runningDone = limiter.run('a', running.job);
    let waiterGone = false;
    const abandoned = limiter.run('a', manual(started, 'abandoned').job, () => waiterGone);
    const second = manual(started, 'second');
    const secondDone = limiter.run('a', second.job, () => false);
    await tick();
    await expect(
      limiter.run(
        'a',
        async () => 'refused',
        () => false,
      ),
    ).rejects.toBeInstanceOf(QueueFullError);
    waiterGone = true;
    const newcomer = manual(started, 'newcomer');
    const newcomerDone = limiter.run('a', newcomer.job, () => false);
    await expect(abandoned).rejects.toBeInstanceOf(CallerGoneError);
    expect(limiter.queuedFor('a')).toBe(2);
    // The dropped job never ran and never held the slot: the running one still has it.
    expect(limiter.active).toBe(1);
    running.finish();
    await tick();
    second.finish();
    await tick();
    newcomer.finish();
    expect([await runningDone, await secondDone, await newcomerDone]).toEqual(['running', 'second', 'newcomer']);
    expect(started).toEqual(['running', 'second', 'newcomer']);
    expect(limiter.active).toBe(0);
    expect(limiter.queued).toBe(0);
    for (const leave of [leaveSecond, leaveThird]) leave();
    expect(limiter.admittedFor('a')).toBe(0);
  });
});
