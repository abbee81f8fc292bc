import { addInterval, type IncludedItem, type Interval } from '../../../contract/config/payments.js';

/**
 * The item ledger's fold (Stack Auth's rule, issue 18 item 3): a balance is not a stored counter
 * but the fold of its entries, so it can be recomputed, audited and property-tested.
 *
 * - A positive entry is a grant: a bucket that holds its quantity until it expires (null: never).
 * - A negative entry consumes the buckets alive at that moment, the soonest-expiring first (a
 *   never-expiring bucket last); what no bucket covers becomes debt.
 * - A later grant pays the debt first (an overdraw is owed, not forgiven by the next grant's expiry).
 * - The quantity at `now` is what the living buckets hold minus the debt.
 * Entries are integers; nothing here is money.
 */
export interface LedgerEntry {
  delta: number;
  at: Date;
  expiresAt: Date | null;
}

export interface Bucket {
  remaining: number;
  expiresAt: Date | null;
  /** When it was granted (order of entries), for the consumption-order property. */
  at: Date;
}

export interface LedgerState {
  quantity: number;
  buckets: Bucket[];
  debt: number;
}

const expiryOf = (b: { expiresAt: Date | null }): number => b.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;

export function foldLedger(entries: readonly LedgerEntry[], now: Date): LedgerState {
  const sorted = entries.filter((e) => e.at.getTime() <= now.getTime()).sort((a, b) => a.at.getTime() - b.at.getTime());
  let buckets: Bucket[] = [];
  let debt = 0;
  for (const entry of sorted) {
    const t = entry.at.getTime();
    buckets = buckets.filter((b) => expiryOf(b) > t && b.remaining > 0);
    if (entry.delta > 0) {
      // A grant that is already expired when it lands adds nothing.
      if (expiryOf(entry) <= t) continue;
      const paid = Math.min(debt, entry.delta);
      debt -= paid;
      if (entry.delta > paid) buckets.push({ remaining: entry.delta - paid, expiresAt: entry.expiresAt, at: entry.at });
    } else if (entry.delta < 0) {
      let need = -entry.delta;
      for (const bucket of [...buckets].sort((a, b) => expiryOf(a) - expiryOf(b))) {
        if (need === 0) break;
        const taken = Math.min(bucket.remaining, need);
        bucket.remaining -= taken;
        need -= taken;
      }
      debt += need;
    }
  }
  buckets = buckets.filter((b) => expiryOf(b) > now.getTime() && b.remaining > 0);
  return { quantity: buckets.reduce((sum, b) => sum + b.remaining, 0) - debt, buckets, debt };
}

/** Safety cap on the periods one product derives (a 1-millisecond repeat must not hang a read). */
export const MAX_PERIODS = 10_000;

/**
 * The grants one held product makes of one item up to `now`: one at the start, then one per
 * repeat period while the product is held. Expiry per `expires`: never, at the next repeat
 * (when-repeated), or when the product ends (when-purchase-expires; open while it is held).
 */
export function productGrants(included: IncludedItem, productQuantity: number, startedAt: Date, endedAt: Date | null, now: Date): LedgerEntry[] {
  const quantity = included.quantity * productQuantity;
  if (quantity <= 0) return [];
  const end = endedAt && endedAt.getTime() < now.getTime() ? endedAt : now;
  const purchaseExpiry = endedAt;
  if (included.repeat === 'never' || included.repeat[0] === 0) {
    return [{ delta: quantity, at: startedAt, expiresAt: included.expires === 'when-purchase-expires' ? purchaseExpiry : null }];
  }
  const repeat: Interval = included.repeat;
  const grants: LedgerEntry[] = [];
  for (let k = 0; k < MAX_PERIODS; k++) {
    const at = addInterval(startedAt, repeat, k);
    if (at.getTime() > end.getTime() || (endedAt && at.getTime() >= endedAt.getTime())) break;
    const expiresAt =
      included.expires === 'when-repeated' ? addInterval(startedAt, repeat, k + 1) : included.expires === 'when-purchase-expires' ? purchaseExpiry : null;
    grants.push({ delta: quantity, at, expiresAt });
  }
  return grants;
}
