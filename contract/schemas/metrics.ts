import { z } from 'zod';

/** `?include_anonymous=true` counts anonymous users too (query booleans are strings on the wire). */
export const metricsQuerySchema = z.strictObject({
  include_anonymous: z.stringbool().optional(),
});

const dayCount = z.object({ date: z.string(), count: z.number() });

export const metricsSchema = z.object({
  total_users: z.number(),
  anonymous_users: z.number(),
  /** Users whose last activity (a sign-in, refresh or authenticated call; kept per user, to the minute) falls in the window. */
  active_users: z.object({ last_day: z.number(), last_7_days: z.number(), last_30_days: z.number() }),
  /** Last 30 days, oldest first, every day present (zero-filled), UTC dates `YYYY-MM-DD`. */
  sign_ups_per_day: z.array(dayCount),
  /** Daily active users, same 30 days: each user counted on every UTC day they signed up or acted (a history, kept per day). */
  daily_active_users: z.array(dayCount),
  /** Users by the day of their most recent activity, same 30 days: today's count is today's active users. */
  last_active_per_day: z.array(dayCount),
  users_by_auth_method: z.object({ password: z.number(), email_code: z.number(), passkey: z.number(), none: z.number() }),
});
