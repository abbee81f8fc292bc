/**
 * Answers that must not reveal, by how long they take, which path the server took (OWASP ASVS
 * 6.3.8: no account enumeration through response times).
 */

/**
 * Runs `work` and settles with its result or error no sooner than `millis` after the call. For a
 * request whose two paths differ by a few database writes (password reset: an unknown address
 * writes nothing, a known one a code and an email), padding both to one floor hides the
 * difference as long as the work fits under the floor; the writes themselves cannot be made
 * equal without writing for addresses that do not exist.
 *
 * @example
 * await withMinimumDuration(50, () => mailResetLinkIfTheAccountExists(email));
 */
export async function withMinimumDuration<T>(millis: number, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    await waitUntil(started + millis);
  }
}

async function waitUntil(at: number): Promise<void> {
  const left = at - performance.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
}

/**
 * A floor that follows how long the slower of two paths has lately taken, for answers padded so
 * that which path ran does not show. A fixed floor hides the slower path only while its work fits
 * under it, and on a saturated machine it does not (password reset on 2 busy cores: a known address
 * 109 ms, an unknown one padded to 63 ms, with a 50 ms floor). The floor is a quarter above the
 * median of the slower path's last `samples` times within `windowMs`, never below `minMillis` nor
 * above `maxMillis`: the median, so one cold start (the first email rendered after a restart) does
 * not slow every answer for a while, and only the slower path's times, so a stream of fast answers
 * does not pull it down. It hides the slower path's typical time, not its tail; work of the same
 * cost on both paths would hide that too.
 */
export class DurationFloor {
  private readonly times: { took: number; at: number }[] = [];

  constructor(
    private readonly minMillis: number,
    private readonly maxMillis: number,
    private readonly samples = 8,
    private readonly windowMs = 60_000,
  ) {}

  /** What an answer now is padded to. */
  millis(now = performance.now()): number {
    const recent = this.times
      .filter((t) => now - t.at <= this.windowMs)
      .map((t) => t.took)
      .sort((a, b) => a - b);
    const median = recent.length === 0 ? 0 : recent[Math.floor((recent.length - 1) / 2)]!;
    return Math.min(this.maxMillis, Math.max(this.minMillis, median * 1.25));
  }

  /** Notes how long one answer that took the slower path worked. */
  observe(tookMillis: number, now = performance.now()): void {
    this.times.push({ took: tookMillis, at: now });
    if (this.times.length > this.samples) this.times.shift();
  }

  /** Whether the floor is at its minimum with nothing recent to raise it (a holder of many can let it go). */
  settled(now = performance.now()): boolean {
    return this.times.every((t) => now - t.at > this.windowMs);
  }
}

/**
 * withMinimumDuration to a DurationFloor: `work` calls `slowPath()` when it takes the path whose
 * time the floor follows; its time is then observed, and every answer waits until the floor.
 */
export async function withAdaptiveMinimum<T>(floor: DurationFloor, work: (slowPath: () => void) => Promise<T>): Promise<T> {
  const started = performance.now();
  let slow = false;
  try {
    return await work(() => (slow = true));
  } finally {
    if (slow) floor.observe(performance.now() - started);
    await waitUntil(started + floor.millis());
  }
}
