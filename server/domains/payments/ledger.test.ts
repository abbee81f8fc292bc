import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { type LedgerEntry, foldLedger, productGrants } from './ledger.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

const entryArb = fc.record({
  delta: fc.integer({ min: -50, max: 50 }),
  at: fc.integer({ min: 0, max: 1000 }).map(at),
  expiresAt: fc.option(fc.integer({ min: 0, max: 1200 }).map(at), { nil: null }),
});

describe('the ledger fold', () => {
  it('without expiries, is the sum of the deltas (grants pay debt, removals overdraw)', () => {
    fc.assert(
      fc.property(fc.array(entryArb.map((e) => ({ ...e, expiresAt: null }))), (entries) => {
        expect(foldLedger(entries, at(2000)).quantity).toBe(entries.reduce((s, e) => s + e.delta, 0));
      }),
    );
  });

  it('never exceeds the sum of the deltas, and equals living buckets minus debt', () => {
    fc.assert(
      fc.property(fc.array(entryArb), fc.integer({ min: 0, max: 1300 }), (entries, nowMin) => {
        const now = at(nowMin);
        const state = foldLedger(entries, now);
        const due = entries.filter((e) => e.at.getTime() <= now.getTime());
        expect(state.quantity).toBeLessThanOrEqual(due.reduce((s, e) => s + Math.max(e.delta, 0), 0));
        expect(state.quantity).toBe(state.buckets.reduce((s, b) => s + b.remaining, 0) - state.debt);
        for (const b of state.buckets) expect(b.expiresAt === null || b.expiresAt.getTime() > now.getTime()).toBe(true);
      }),
    );
  });

  it('consumes the soonest-expiring grant first', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 200 }), (a, b, take) => {
        // a expires at 100 min, b at 200 min (or never); take at minute 10. At minute 150 only b's remainder counts.
        const entries: LedgerEntry[] = [
          { delta: b, at: at(0), expiresAt: at(200) },
          { delta: a, at: at(1), expiresAt: at(100) },
          { delta: -take, at: at(10), expiresAt: null },
        ];
        const fromA = Math.min(a, take);
        const fromB = Math.min(b, take - fromA);
        const debt = take - fromA - fromB;
        expect(foldLedger(entries, at(50)).quantity).toBe(a + b - take);
        expect(foldLedger(entries, at(150)).quantity).toBe(b - fromB - debt);
        expect(foldLedger(entries, at(250)).quantity).toBe(0 - debt || 0);
      }),
    );
  });

  it('drops an expired grant and lets a later grant pay a debt first', () => {
    const entries: LedgerEntry[] = [
      { delta: 5, at: at(0), expiresAt: at(10) },
      { delta: -8, at: at(5), expiresAt: null },
      { delta: 10, at: at(20), expiresAt: null },
    ];
    expect(foldLedger(entries, at(6)).quantity).toBe(-3);
    expect(foldLedger(entries, at(15)).quantity).toBe(-3);
    expect(foldLedger(entries, at(25)).quantity).toBe(7);
  });
});

describe('repeating product grants', () => {
  it('grants once per period, each expiring at the next repeat when configured so', () => {
    const grants = productGrants(
      { quantity: 10, repeat: [1, 'month'], expires: 'when-repeated' },
      2,
      new Date(Date.UTC(2026, 0, 15)),
      null,
      new Date(Date.UTC(2026, 3, 20)),
    );
    expect(grants.map((g) => g.at.toISOString().slice(0, 10))).toEqual(['2026-01-15', '2026-02-15', '2026-03-15', '2026-04-15']);
    expect(grants.every((g) => g.delta === 20)).toBe(true);
    expect(foldLedger(grants, new Date(Date.UTC(2026, 3, 20))).quantity).toBe(20);
    const kept = productGrants(
      { quantity: 10, repeat: [1, 'month'], expires: 'never' },
      1,
      new Date(Date.UTC(2026, 0, 15)),
      null,
      new Date(Date.UTC(2026, 3, 20)),
    );
    expect(foldLedger(kept, new Date(Date.UTC(2026, 3, 20))).quantity).toBe(40);
  });

  it('stops at the end of the purchase, and when-purchase-expires grants expire then', () => {
    const end = new Date(Date.UTC(2026, 2, 1));
    const grants = productGrants(
      { quantity: 3, repeat: 'never', expires: 'when-purchase-expires' },
      1,
      new Date(Date.UTC(2026, 0, 1)),
      end,
      new Date(Date.UTC(2026, 5, 1)),
    );
    expect(grants).toEqual([{ delta: 3, at: new Date(Date.UTC(2026, 0, 1)), expiresAt: end }]);
    expect(foldLedger(grants, new Date(Date.UTC(2026, 1, 1))).quantity).toBe(3);
    expect(foldLedger(grants, new Date(Date.UTC(2026, 5, 1))).quantity).toBe(0);
    const weekly = productGrants(
      { quantity: 1, repeat: [1, 'week'], expires: 'never' },
      1,
      new Date(Date.UTC(2026, 0, 1)),
      end,
      new Date(Date.UTC(2026, 5, 1)),
    );
    expect(weekly).toHaveLength(9); // Jan 1 … Feb 26: the periods that started before March 1
  });
});
