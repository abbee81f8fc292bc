import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../access/context.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { REVENUE_DEFAULT_DAYS, REVENUE_MAX_DAYS } from '../../../contract/schemas/payments.js';
import * as bq from './billing-queries.js';

/**
 * GET /internal/payments/revenue (issue 18 item 7): money per UTC day and currency from the
 * transaction log, live and test mode apart. Refunds and disputes count on the day they happen,
 * so a day can be negative; a refund of an earlier purchase never rewrites that earlier day.
 */

const DAY_MS = 86_400_000;

const isoDay = (at: Date) => at.toISOString().slice(0, 10);

function schemaError(path: string, message: string): never {
  throw new KnownErrors.SchemaError(`Request validation failed:\n  - ${path} ${message}`, { issues: [{ path, message }] });
}

/** The inclusive UTC day range asked for: from/to, or the last `days` days ending today. */
export function revenueRange(input: { from?: string; to?: string; days?: number }, now = new Date()): { from: Date; to: Date } {
  if (input.from !== undefined || input.to !== undefined) {
    if (input.days !== undefined) schemaError('days', 'cannot be given with from and to');
    if (input.from === undefined || input.to === undefined)
      schemaError(input.from === undefined ? 'from' : 'to', 'is required with the other end of the range');
    const from = new Date(`${input.from}T00:00:00.000Z`);
    const to = new Date(`${input.to}T00:00:00.000Z`);
    if (to < from) schemaError('to', 'must not be before from');
    if ((to.getTime() - from.getTime()) / DAY_MS + 1 > REVENUE_MAX_DAYS)
      schemaError('to', `must be at most ${REVENUE_MAX_DAYS} days after from (both included)`);
    return { from, to };
  }
  const to = new Date(`${isoDay(now)}T00:00:00.000Z`);
  return { from: new Date(to.getTime() - ((input.days ?? REVENUE_DEFAULT_DAYS) - 1) * DAY_MS), to };
}

export interface RevenueDay {
  date: string;
  currency: string;
  gross_minor: number;
  refunds_minor: number;
  net_minor: number;
}

export async function getRevenue(
  deps: Deps,
  auth: AuthContext,
  input: { from?: string; to?: string; days?: number },
): Promise<{ from: string; to: string; live: RevenueDay[]; test: RevenueDay[] }> {
  const range = revenueRange(input);
  const rows = await bq.revenueByDay(deps.db, auth.tenancy.id, range.from, new Date(range.to.getTime() + DAY_MS));
  const live: RevenueDay[] = [];
  const test: RevenueDay[] = [];
  for (const row of rows) {
    (row.test_mode ? test : live).push({
      date: row.date,
      currency: row.currency,
      gross_minor: row.gross_minor,
      refunds_minor: row.refunds_minor,
      net_minor: row.gross_minor - row.refunds_minor,
    });
  }
  return { from: isoDay(range.from), to: isoDay(range.to), live, test };
}
