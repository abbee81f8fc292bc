import { describe, expect, it } from 'vitest';
import { withMinimumDuration } from './timing.js';

describe('withMinimumDuration', () => {
  it('pads fast work, success or failure, to the floor and passes its outcome through', async () => {
    let started = performance.now();
    expect(await withMinimumDuration(60, async () => 'done')).toBe('done');
    // Timers may fire a millisecond early on some platforms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(58);
    started = performance.now();
    await expect(
      withMinimumDuration(60, async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(performance.now() - started).toBeGreaterThanOrEqual(58);
  });

  it('adds nothing to work that is already slower than the floor', async () => {
    const started = performance.now();
    await withMinimumDuration(180, () => new Promise((resolve) => setTimeout(resolve, 200)));
    // 200 ms of work, not 200 + 180 (a floor added on top); the margin absorbs a loaded machine.
    expect(performance.now() - started).toBeLessThan(360);
  });
});
