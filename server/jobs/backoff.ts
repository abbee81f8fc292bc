/** Retry delays of jobs: exponential, with jitter so that jobs that failed together spread out. */

const HOUR_MS = 3_600_000;

/**
 * Delay before attempt `attempt + 1`, after `attempt` failed ones: `baseMs` doubled after each
 * further failure, at most `maxMs` (an hour), then ±25 % jitter.
 */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random, maxMs = HOUR_MS): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), maxMs);
  return Math.round(exponential * (0.75 + random() * 0.5));
}

/** A kind's `backoff` from its first delay (see retryDelayMs). */
export function exponentialBackoff(options: { baseMs: number; maxMs?: number }): (failedAttempts: number) => number {
  return (failedAttempts) => retryDelayMs(failedAttempts, options.baseMs, Math.random, options.maxMs);
}
