import { describe, expect, it } from 'vitest';
import { DurationFloor, withAdaptiveMinimum, withMinimumDuration } from './timing.js';

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

describe('DurationFloor', () => {
  it("follows the median of the slower path's recent times, a quarter above it, within its bounds", () => {
    const floor = new DurationFloor(50, 2_000, 8, 60_000);
    expect(floor.millis(0)).toBe(50);
    expect(floor.settled(0)).toBe(true);
    // Fast slow-path times never take it below the minimum.
    floor.observe(10, 0);
    expect(floor.millis(0)).toBe(50);
    // One cold start does not move the median of two.
    floor.observe(900, 1_000);
    expect(floor.millis(1_000)).toBe(50);
    // A saturated machine: the slow path's times rise and the floor with them.
    for (let i = 0; i < 4; i++) floor.observe(120, 2_000 + i);
    expect(floor.millis(3_000)).toBe(150);
    expect(floor.settled(3_000)).toBe(false);
    // Only the last 8 count, and only within the window.
    for (let i = 0; i < 8; i++) floor.observe(40, 4_000 + i);
    expect(floor.millis(5_000)).toBe(50);
    expect(floor.settled(70_000)).toBe(true);
    expect(floor.millis(70_000)).toBe(50);
    // Never past the maximum, however slow.
    for (let i = 0; i < 8; i++) floor.observe(60_000, 80_000 + i);
    expect(floor.millis(80_010)).toBe(2_000);
  });

  it('pads the fast path to what the slow path lately took, which is what hides which one ran', async () => {
    const floor = new DurationFloor(20, 2_000);
    // The slow path under load: 120 ms of work each time.
    for (let i = 0; i < 3; i++) await withAdaptiveMinimum(floor, (slowPath) => new Promise((resolve) => setTimeout(() => resolve(slowPath()), 120)));
    // The fast path (nothing to write): padded past the slow one's work (a quarter above it), where
    // the fixed floor of 20 ms would have answered in ~20 ms. Its own time does not lower the floor.
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect(await withAdaptiveMinimum(floor, async () => 'nothing to write')).toBe('nothing to write');
      expect(performance.now() - started).toBeGreaterThanOrEqual(118);
    }
  });
});
