import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../access/context.js';
import * as q from './queries.js';
import type { metricsQuerySchema, metricsSchema } from '../../../contract/schemas/metrics.js';

const DAYS = 30;

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The last `DAYS` UTC dates, oldest first, ending today. */
function lastDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: DAYS }, (_, i) => utcDay(new Date(today - (DAYS - 1 - i) * 86_400_000)));
}

/**
 * The overview of a project: totals, sign-ups per day and activity. Activity comes from
 * users.last_active_at (bumped at most once a minute per user on authenticated calls and
 * refreshes): it is the latest activity of each user, so "active users" are counts over windows
 * ending now and last_active_per_day is "last seen on that day". daily_active_users is the real
 * history, from user_daily_activity (one row per user and UTC day they were active, written by
 * the same throttled update) plus the day each user signed up.
 */
export async function getMetrics(deps: Deps, auth: AuthContext, input: z.infer<typeof metricsQuerySchema>): Promise<z.infer<typeof metricsSchema>> {
  const includeAnonymous = input.include_anonymous ?? false;
  const now = new Date();
  const days = lastDays(now);
  const since = new Date(`${days[0]}T00:00:00.000Z`);
  // Counts over a whole tenancy: the read replica's (lag of a few rows changes nothing here).
  const [totals, daily, dailyActive] = await Promise.all([
    q.userTotals(deps.readDb, auth.tenancy.id, includeAnonymous),
    q.dailyCounts(deps.readDb, auth.tenancy.id, since, includeAnonymous),
    q.dailyActiveUsers(deps.readDb, auth.tenancy.id, since, includeAnonymous),
  ]);
  return {
    total_users: totals.total,
    anonymous_users: totals.anonymous,
    active_users: { last_day: totals.active_day, last_7_days: totals.active_week, last_30_days: totals.active_month },
    sign_ups_per_day: days.map((date) => ({ date, count: daily.signUps.get(date) ?? 0 })),
    daily_active_users: days.map((date) => ({ date, count: dailyActive.get(date) ?? 0 })),
    last_active_per_day: days.map((date) => ({ date, count: daily.lastActive.get(date) ?? 0 })),
    users_by_auth_method: { password: totals.password, email_code: totals.email_code, passkey: totals.passkey, none: totals.none },
  };
}
